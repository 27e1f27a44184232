// Operator routes for orders: not built yet.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

const routes: FastifyPluginAsyncTypebox = async () => {};

export default routes;
