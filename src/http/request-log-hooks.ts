// Hooks that feed the request log: every integration-API request made with a key we know (revoked
// ones included) is recorded when its response is sent, with the problem body for errors.
// Both hooks are plain callbacks, not async functions: Fastify runs an async hook through a
// promise and a further tick for every request, even one that is not logged. What a request
// leaves is the primitives it already had (ids, method, URL, status, times); the problem body is
// kept only for errors, and split, parsed and made storable at write time, off the request path.
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

const problems = new WeakMap<object, string>();

export function logRequests(app: FastifyInstance) {
  app.addHook('onSend', (req: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void) => {
    if (reply.statusCode >= 400 && req.loggedKey && typeof payload === 'string') problems.set(req, payload);
    done(null, payload);
  });
  app.addHook('onResponse', (req: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const key = req.loggedKey;
    if (key) {
      const problem = reply.statusCode >= 400 ? (problems.get(req) ?? null) : null;
      const durationMs = reply.elapsedTime;
      app.requestLog.record({
        merchantId: key.merchantId,
        apiKeyId: key.id,
        requestId: req.id,
        method: req.method,
        url: req.url,
        status: reply.statusCode,
        errorCode: problem ? (/"code":"([a-z_]+)"/.exec(problem)?.[1] ?? null) : null,
        durationMs,
        problem,
        at: Date.now() - durationMs,
      });
    }
    done();
  });
}
