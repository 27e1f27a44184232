// Headers every answer carries, whatever produced it (a route, a hook's refusal, the router, Node's
// parser): browsers must not sniff a JSON or problem body into HTML, and no URL of ours (portal
// paths hold record ids) leaks to another site as a Referer. Strict-Transport-Security only when
// the service is published over https (PUBLIC_BASE_URL): the TLS terminator is in front of us, and
// browsers ignore the header over http anyway. Pages set their own Content-Security-Policy
// (src/portal, src/openapi). Three static headers, set in the hook that already sets X-Request-Id:
// a middleware library such as @fastify/helmet would add a hook and a dozen page-only headers to
// every API answer (docs/decisions.md, "Security headers").
export const BASE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** The headers of every answer, for a service published at `publicBaseUrl`. */
export function securityHeaders(publicBaseUrl: string | null): Readonly<Record<string, string>> {
  return publicBaseUrl?.startsWith('https:') ? { ...BASE_SECURITY_HEADERS, 'Strict-Transport-Security': 'max-age=31536000' } : BASE_SECURITY_HEADERS;
}
