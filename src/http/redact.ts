// Secrets a client put where it should not (an API key or signing secret in its URL), kept out of
// everything the service stores or writes about a request: the request log's path, query and
// problem (every portal user of the merchant reads it for days), and the access log's path. The
// README promises secrets are never logged.
import { KEY_PREFIX } from './keys.ts';

const SECRET_VALUE = new RegExp(`(?:${KEY_PREFIX}|whsec_)[^&/?#\\s"\\\\]*`, 'g');
const SECRET_PARAM = /(^|&)([^=&]*(?:key|token|secret|password|signature)[^=&]*)=[^&]*/gi;
export const REDACTED = '[redacted]';

/** Text with every API key and signing secret in it replaced. */
export const redactSecrets = (text: string) => (text.includes(KEY_PREFIX) || text.includes('whsec_') ? text.replace(SECRET_VALUE, REDACTED) : text);

/** A query string with secrets, and the values of parameters named like credentials, replaced. */
export const redactQuery = (query: string) => redactSecrets(query).replace(SECRET_PARAM, `$1$2=${REDACTED}`);
