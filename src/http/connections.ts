// What each connection has taken and not yet answered: Node parses pipelined requests ahead and
// the app applies them, so whatever closes a connection (shutdown, a body Fastify could not parse,
// a request Node's parser refused) waits for their answers first. Kept by the app's onRequest and
// onSend hooks (src/app.ts).
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

const TAKEN = Symbol('requests taken on this connection and not yet answered');
const AFTER_ANSWERS = Symbol('what to do once the complete ones are answered');
const COUNT = Symbol('requests taken on this connection so far');
const NUMBER = Symbol("the request's place among its connection's");
type Tracked = Socket & { [TAKEN]?: Set<IncomingMessage>; [AFTER_ANSWERS]?: () => void; [COUNT]?: number };
type Numbered = IncomingMessage & { [NUMBER]?: number };

/** The app took `req` (its headers are in; its body may still be arriving). */
export function taken(req: IncomingMessage): void {
  const s = req.socket as Tracked;
  (s[TAKEN] ??= new Set()).add(req);
  (req as Numbered)[NUMBER] = s[COUNT] = (s[COUNT] ?? 0) + 1;
}

/** Requests taken whose bodies have arrived: the app acts on them, so each is owed its answer. */
function owesAnswers(s: Tracked): boolean {
  for (const r of s[TAKEN] ?? []) if (r.complete) return true;
  return false;
}

/**
 * `req`'s answer is being sent: how many requests its connection took after it. Node writes the
 * answers of pipelined requests in the order they came, whatever order they finish in, so only the
 * last one taken may close the connection: when a later one finished first, closing on this one
 * dropped the later answer, already applied (a clean-clone CI run saw it once). `whenSent`
 * is given what afterAnswers left waiting, when this was the last answer it waited for, to run once
 * this answer has gone out.
 */
export function answering(req: IncomingMessage, whenSent: (then: () => void) => void): number {
  const s = req.socket as Tracked;
  const taken = s[TAKEN];
  taken?.delete(req);
  const then = s[AFTER_ANSWERS];
  if (then && !owesAnswers(s)) {
    s[AFTER_ANSWERS] = undefined;
    let ran = false;
    whenSent(() => {
      if (!ran) ((ran = true), then());
    });
  }
  return (s[COUNT] ?? 0) - ((req as Numbered)[NUMBER] ?? 0);
}

/**
 * Runs `then` at once when the connection owes no answer, else once its last one has gone out. A
 * request whose body has not arrived (the one a request timeout or a bad chunk ends) is owed none.
 */
export function afterAnswers(socket: Socket, then: () => void): void {
  const s = socket as Tracked;
  if (owesAnswers(s)) s[AFTER_ANSWERS] = then;
  else then();
}

/** How long a connection closed after its answer goes on reading what its request still sends. */
export const LINGER_MS = 10_000;

/**
 * `req`'s answer closes the connection before its body has arrived (a 413 refused by its
 * Content-Length, before a byte of the body was read). Node then closed the socket with the body
 * still coming, the client's kernel was answered with a reset, and a client that sends its whole
 * body before reading (Python's http.client and requests) got a broken pipe instead of the 413;
 * larger bodies than the socket buffers hold never saw it. Now, as nginx's lingering close does,
 * the answer is sent and the sending side closed, and what the client still sends is read and
 * dropped until the body has arrived, the client closes, or LINGER_MS pass (or the request
 * timeout, which Node keeps counting), then the socket is closed.
 */
export function lingerAfterAnswer(req: IncomingMessage): void {
  const socket = req.socket as Socket & { destroySoon?: () => void };
  if (req.complete || socket.destroyed) return;
  // Node closes a connection whose answer said `Connection: close` with destroySoon, once the
  // answer is written: this connection's own version waits for the body first.
  socket.destroySoon = () => {
    socket.end();
    const close = () => {
      clearTimeout(timer);
      socket.destroy();
    };
    const timer = setTimeout(close, LINGER_MS).unref();
    if (req.complete) return close();
    // Node dumps the body of a request whose answer is sent (it reads and drops it).
    req.once('end', close);
    socket.once('close', () => clearTimeout(timer));
  };
}
