// Webhook signatures: HMAC-SHA256 over `${timestamp}.${raw_body}`, hex, sent as `v1=<hex>`.
// During a secret rotation both the new and the previous secret sign, space-separated.
import { createHmac } from 'node:crypto';

export function sign(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

export function signatureHeader(secrets: string[], timestamp: number, body: string): string {
  return secrets.map((s) => `v1=${sign(s, timestamp, body)}`).join(' ');
}
