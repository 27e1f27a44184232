// Hooks that feed the request log: every integration-API request made with a key we know (revoked
// ones included) is recorded when its response is sent, with the problem body for errors.
import type { FastifyInstance } from 'fastify';

const problems = new WeakMap<object, string>();

export function logRequests(app: FastifyInstance) {
  app.addHook('onSend', async (req, reply, payload) => {
    if (reply.statusCode >= 400 && req.loggedKey && typeof payload === 'string') problems.set(req, payload);
    return payload;
  });
  app.addHook('onResponse', async (req, reply) => {
    const key = req.loggedKey;
    if (!key) return;
    const problem = problems.get(req) ?? null;
    let errorCode: string | null = null;
    if (problem) errorCode = /"code":"([a-z_]+)"/.exec(problem)?.[1] ?? null;
    app.requestLog.record({
      merchantId: key.merchantId,
      apiKeyId: key.id,
      requestId: req.id,
      method: req.method,
      url: req.url,
      status: reply.statusCode,
      errorCode,
      durationMs: reply.elapsedTime,
      problem,
      at: new Date(Date.now() - reply.elapsedTime),
    });
  });
}
