// The sign-in throttle. Sign-in attempts are counted three ways, on the normalised email (the one
// sign-in looks up) and the client address, in fixed 15-minute windows:
// - per (email, address): the 6th attempt after 5 failures is refused;
// - per address, whatever the email: 20 failures (one client spraying many emails);
// - per email, whatever the address: 50 failures, except from an address where that user signed
//   in successfully in the last 30 days, so an attacker elsewhere cannot lock the real user out
//   of a place they use.
// An attempt is counted before the password is checked (parallel guesses cannot slip past the
// limit between check and count) and taken back when it succeeds; a refused attempt costs no
// password work. The address is counted first: an attempt from an address already over its limit
// counts for nothing else, so a refused spray neither fills the store with a pair and an email
// count per attempt (~480 bytes of memory each, unbounded at thousands a second) nor uses up the
// emails' own budgets.
import { createHash } from 'node:crypto';
import type { Count, CounterStore } from '../http/counters.ts';
import { AppError } from '../http/errors.ts';
import { rateLimited } from '../metrics.ts';

export const SIGN_IN_LIMITS = {
  perEmailAndAddress: 5,
  perAddress: 20,
  perEmail: 50,
  windowMs: 15 * 60_000,
  knownAddressMs: 30 * 24 * 3600_000,
};

// Emails are hashed so the shared store holds no one's address.
const id = (email: string) => createHash('sha256').update(email).digest('base64url').slice(0, 22);

function refuse(over: Count[]): never {
  const wait = Math.max(...over.map((c) => c.resetInMs));
  rateLimited.inc({ limiter: 'portal_sign_in' });
  throw new AppError('rate_limited', 'Too many failed sign-ins. Try again later.', undefined, {
    'Retry-After': String(Math.max(1, Math.ceil(wait / 1000))),
  });
}

export function signInThrottle(store: CounterStore, limits = SIGN_IN_LIMITS) {
  const keys = (email: string, ip: string) => ({
    pair: `signin:pair:${id(email)}:${ip}`,
    address: `signin:addr:${ip}`,
    email: `signin:email:${id(email)}`,
    known: `signin:known:${id(email)}:${ip}`,
  });

  return {
    /** Counts an attempt for this normalised email and address; throws 429 when one count is over its limit. */
    async attempt(email: string, ip: string): Promise<void> {
      const k = keys(email, ip);
      const address = await store.hit(k.address, limits.windowMs);
      if (address.count > limits.perAddress) refuse([address]);
      const [pair, perEmail, known] = await Promise.all([store.hit(k.pair, limits.windowMs), store.hit(k.email, limits.windowMs), store.peek(k.known)]);
      const over = [pair.count > limits.perEmailAndAddress ? pair : null, perEmail.count > limits.perEmail && known.count === 0 ? perEmail : null].filter(
        (c) => c !== null,
      );
      if (over.length) refuse(over);
    },
    /** The attempt was right: it does not count, the pair starts afresh, the address becomes known. */
    async succeeded(email: string, ip: string): Promise<void> {
      const k = keys(email, ip);
      await Promise.all([
        store.reset(k.pair),
        store.undo(k.address),
        store.undo(k.email),
        store.reset(k.known).then(() => store.hit(k.known, limits.knownAddressMs)),
      ]);
    },
  };
}

export type SignInThrottle = ReturnType<typeof signInThrottle>;

/**
 * Test events and resends the portal sends, per fixed minute: per endpoint, and per merchant across
 * its endpoints (so neither many endpoints at one URL nor deleting and re-creating an endpoint gets
 * past the limit). Each one is a post to a URL the merchant chose (retried for days when it fails),
 * so a held-down button or a script must not turn the service into a flood of someone's server.
 */
export const SEND_LIMITS = { perEndpoint: 10, perMerchant: 30, windowMs: 60_000 };

export function sendThrottle(store: CounterStore, limits = SEND_LIMITS) {
  return {
    /**
     * Counts a test event or resend to this endpoint (the caller has checked it is the merchant's);
     * throws 429 when either minute's count is over. A refused send is not counted.
     */
    async take(merchantId: string, endpointId: string): Promise<void> {
      const keys = { endpoint: `portal:sends:${merchantId}:${endpointId}`, merchant: `portal:sends:${merchantId}` };
      const [endpoint, merchant] = await Promise.all([store.hit(keys.endpoint, limits.windowMs), store.hit(keys.merchant, limits.windowMs)]);
      const over = endpoint.count > limits.perEndpoint ? endpoint : merchant.count > limits.perMerchant ? merchant : null;
      if (!over) return;
      await Promise.all([store.undo(keys.endpoint), store.undo(keys.merchant)]);
      rateLimited.inc({ limiter: 'portal_sends' });
      const detail =
        over === endpoint
          ? `At most ${limits.perEndpoint} test events and resends per endpoint per minute. Try again later.`
          : `At most ${limits.perMerchant} test events and resends per minute across the merchant's endpoints. Try again later.`;
      throw new AppError('rate_limited', detail, undefined, { 'Retry-After': String(Math.max(1, Math.ceil(over.resetInMs / 1000))) });
    },
  };
}
