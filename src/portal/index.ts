// The merchant portal: not built yet.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

export const portal: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/portal', { schema: { hide: true } }, async (_req, reply) => reply.type('text/html').send('<!doctype html><title>Portal</title><p>The portal is not built yet.</p>'));
};
