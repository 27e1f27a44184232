// Checks a received webhook's signature with node:crypto (not our signer): any v1= part signed with
// `secret` over "timestamp.body" passes.
import { createHmac, timingSafeEqual } from 'node:crypto';

export function verify(secret: string, r: { headers: Record<string, unknown>; raw: string }): boolean {
  const ts = String(r.headers['x-service-webhook-timestamp']);
  const expected = createHmac('sha256', secret).update(`${ts}.${r.raw}`).digest();
  return String(r.headers['x-service-webhook-signature'])
    .split(' ')
    .some((part) => {
      const hex = part.replace(/^v1=/, '');
      const given = Buffer.from(hex, 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}
