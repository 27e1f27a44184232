// Where a webhook may be posted: one rule, used when an endpoint URL is saved (operator API and
// portal, create and PATCH), on every DNS answer, and on the socket actually connected. Address
// classes come from ipaddr.js (maintained, covers the IANA special-purpose registries) rather than
// a hand-written list: only plain global unicast passes, so IPv4-mapped, NAT64, 6to4, Teredo,
// site-local and every private, loopback, link-local, CGNAT, multicast or reserved range is refused.
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** True only for a globally routable unicast address. Anything unparsable is not public. */
export function isPublicAddress(address: string): boolean {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // process() turns IPv4-mapped IPv6 (::ffff:a.b.c.d, in any spelling) into the IPv4 it carries.
    ip = ipaddr.process(address.replace(/^\[|\]$/g, ''));
  } catch {
    return false;
  }
  if (ip.range() !== 'unicast') return false;
  // IPv4-compatible IPv6 (::a.b.c.d, deprecated) counts as unicast to ipaddr.js but embeds IPv4.
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)) return false;
  return true;
}

/** Names that always mean this host or a private network, whatever DNS says. */
const LOCAL_NAMES = /(^|\.)(localhost|internal|local|localdomain|home\.arpa)$/;

/** Why a URL may not be an endpoint's: the message and code of its 422 field error. */
export type UrlRefusal = { message: string; code: 'invalid_format' | 'forbidden_address' };

/**
 * Why this URL may not receive webhooks, or null when it may. Hostnames are checked again at
 * delivery, on every address they resolve to and on the connected socket.
 */
export function endpointUrlRefusal(url: string, allowPrivate: boolean): UrlRefusal | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { message: 'must be an absolute URL', code: 'invalid_format' };
  }
  if (parsed.username || parsed.password) return { message: 'must not contain credentials', code: 'invalid_format' };
  if (allowPrivate) {
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? null : { message: 'must be an http(s) URL', code: 'invalid_format' };
  }
  if (parsed.protocol !== 'https:') return { message: 'must use https', code: 'invalid_format' };
  // URL parsing has already normalised every IPv4 spelling (127.1, 2130706433, 0x7f000001, 0177.0.0.1).
  // Every trailing dot goes, not just the one of a fully qualified name: `localhost..` is localhost
  // too (such a name is also refused on save as malformed, but not before it is called local).
  const host = parsed.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.+$/, '')
    .toLowerCase();
  const local = isIP(host) ? !isPublicAddress(host) : LOCAL_NAMES.test(host);
  return local ? { message: 'must not point at a private, loopback, link-local or otherwise non-public address', code: 'forbidden_address' } : null;
}
