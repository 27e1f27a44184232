// The integration API: authentication (+ rate limit + scope) for every route, then the resources.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { authenticate } from '../http/auth.ts';
import { noRoute } from '../http/errors.ts';
import { logRequests } from '../http/request-log-hooks.ts';
import collections from './collections/routes.ts';
import events from './events/routes.ts';
import fulfillments from './fulfillments/routes.ts';
import inventory from './inventory/routes.ts';
import orders from './orders/routes.ts';
import products from './products/routes.ts';
import reference from './reference/routes.ts';
import socialVideos from './social-videos/routes.ts';

export const integrationApi: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('onRequest', authenticate);
  logRequests(app);
  // A path no route takes is answered after the key is checked, like any other: a mistyped URL
  // sent with a key shows up in that merchant's request log (it was missing from it).
  app.setNotFoundHandler(noRoute);
  for (const routes of [products, collections, socialVideos, orders, fulfillments, inventory, reference, events]) {
    await app.register(routes);
  }
};
