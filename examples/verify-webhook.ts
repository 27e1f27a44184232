// Copy this into your receiver. It verifies a webhook from the merchant integration API:
// HMAC-SHA256 over `${timestamp}.${raw_body}` with your endpoint's signing secret, compared in
// constant time, with a 5-minute timestamp tolerance. During a secret rotation the header carries
// two signatures (`v1=<hex> v1=<hex>`); one matching is enough.
//
// Run the example receiver:  SIGNING_SECRET=whsec_... npx node examples/verify-webhook.ts
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';

export function verifyWebhook(
  rawBody: string | Buffer,
  headers: { timestamp: string | undefined; signature: string | undefined },
  secret: string,
  toleranceSeconds = 300,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  // An HMAC with an empty key is valid: anyone could sign for a receiver started without its secret.
  if (!secret) throw new Error("verifyWebhook: the signing secret is empty; set it to the endpoint's whsec_… secret");
  const timestamp = Number(headers.timestamp);
  if (!Number.isInteger(timestamp) || Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
  return (headers.signature ?? '').split(' ').some((part) => {
    if (!part.startsWith('v1=')) return false;
    const given = Buffer.from(part.slice(3), 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

// An example receiver: verify first, de-duplicate by event id, answer 2xx quickly.
if (import.meta.url === `file://${process.argv[1]}`) {
  const secret = process.env.SIGNING_SECRET ?? '';
  if (!secret) {
    console.error("SIGNING_SECRET is not set: start with SIGNING_SECRET=whsec_… (the endpoint's signing secret).");
    process.exit(2);
  }
  const seen = new Set<string>(); // use a database table in production
  http
    .createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        const ok = verifyWebhook(
          raw,
          { timestamp: req.headers['x-service-webhook-timestamp'] as string, signature: req.headers['x-service-webhook-signature'] as string },
          secret,
        );
        if (!ok) {
          res.writeHead(400).end('bad signature');
          return;
        }
        const event = JSON.parse(raw.toString('utf8'));
        if (!seen.has(event.id)) {
          seen.add(event.id);
          console.log(event.type, event.location_id, event.data.object.id);
        }
        res.writeHead(204).end();
      });
    })
    .listen(Number(process.env.PORT ?? 4000), () => console.log('listening on', process.env.PORT ?? 4000));
}
