// The URL an endpoint may be saved with. It is stored and echoed exactly as the client sent it
// (clients compare the two), while delivery connects to what the URL standard reads from it; so
// besides the address policy (src/events/address-policy.ts) a URL is refused when what is stored
// and what is connected to could differ, or when it could never be delivered to: whitespace or
// control characters (the standard drops tabs and newlines and escapes spaces), a backslash (read
// as a slash), a host the parser rewrites (percent-escapes, characters IDNA removes or maps, other
// IP address spellings), port 0, and a host name DNS cannot carry.
import { isIP } from 'node:net';
import { domainToUnicode } from 'node:url';
import { endpointUrlRefusal, type UrlRefusal } from '../../events/address-policy.ts';

/** ASCII whitespace and every control character (C0, DEL, C1). */
const WHITESPACE_OR_CONTROL = /[\u0000-\u0020\u007f-\u009f]/;
/** What follows `scheme://` up to the path, query or fragment. */
const AUTHORITY = /^[a-z][a-z\d+.-]*:\/\/([^/?#]*)/i;

const malformed = (message: string): UrlRefusal => ({ message, code: 'invalid_format' });

/** Why this URL may not be saved as an endpoint's, or null when it may. */
export function savedUrlRefusal(url: string, allowPrivate: boolean): UrlRefusal | null {
  if (WHITESPACE_OR_CONTROL.test(url)) return malformed('must not contain whitespace or control characters');
  if (url.includes('\\')) return malformed('must not contain a backslash (it is read as "/")');
  const refusal = endpointUrlRefusal(url, allowPrivate);
  if (refusal) return refusal;
  const { hostname, port } = new URL(url);
  if (!hostAsWritten(url, hostname)) return malformed(`must spell its host as it is read: "${domainToUnicode(hostname) || hostname}"`);
  if (port === '0') return malformed('must not use port 0');
  return hostNameRefusal(hostname);
}

/**
 * True when the parser read the host as it is written, up to lower-casing and, for a label with
 * non-ASCII characters, its punycode (`xn--`) form. Anything else it changed (a soft hyphen or
 * zero-width character dropped, fullwidth letters or `。` mapped, `%61` decoded, `0x08080808` read
 * as 8.8.8.8, `https:host` without the slashes) means the stored URL is not the one connected to.
 */
function hostAsWritten(url: string, host: string): boolean {
  const authority = AUTHORITY.exec(url)?.[1];
  if (authority === undefined) return false;
  const written = authority.startsWith('[') ? authority.slice(0, authority.indexOf(']') + 1) : authority.split(':')[0];
  const writtenLabels = written.split('.');
  const readLabels = host.split('.');
  return writtenLabels.length === readLabels.length && writtenLabels.every((label, i) => sameLabel(label, readLabels[i]));
}

const sameLabel = (written: string, read: string) =>
  /^[\x00-\x7f]*$/.test(written)
    ? written.replace(/[A-Z]/g, (c) => c.toLowerCase()) === read
    : read.startsWith('xn--') && written.toLowerCase() === domainToUnicode(read);

/**
 * A host name DNS can be asked for, measured as it is sent (the `xn--` form): no empty label (two
 * dots in a row, a leading dot, more than the one trailing dot of a fully qualified name), labels of
 * at most 63 characters, at most 253 in all.
 */
function hostNameRefusal(host: string): UrlRefusal | null {
  if (host.startsWith('[') || isIP(host)) return null;
  const name = host.endsWith('.') ? host.slice(0, -1) : host;
  const labels = name.split('.');
  if (labels.includes('')) return malformed('must not have an empty label in its host (two dots in a row, or more than one at the end)');
  if (labels.some((label) => label.length > 63)) return malformed('must not have a label longer than 63 characters in its host');
  if (name.length > 253) return malformed('must not have a host longer than 253 characters');
  return null;
}
