// The operator (platform) API: onboarding and storefront intake, guarded by PLATFORM_ADMIN_TOKEN.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { bearerMatches, unauthorized } from '../http/tokens.ts';
import { assertMerchant } from '../modules/merchants/service.ts';
import catalog from './catalog.ts';
import merchants from './merchants.ts';
import orders from './orders.ts';
import requests from './requests.ts';
import webhooks from './webhooks.ts';

export const platformApi: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('onRequest', async (req, reply) => {
    // Answers carry secrets (new keys, signing secrets): never kept by a cache on the way.
    reply.header('Cache-Control', 'no-store');
    const token = app.config.platformAdminToken;
    if (!token) throw unauthorized('The operator API is disabled: set PLATFORM_ADMIN_TOKEN to enable it.');
    if (!bearerMatches(req.raw, token))
      throw unauthorized('A valid operator token is required, in one header: "Authorization: Bearer <PLATFORM_ADMIN_TOKEN>".');
  });
  // Every route under /merchants/:merchant_id answers 404 for a merchant that does not exist.
  app.addHook('preHandler', async (req) => {
    const m = (req.params as { merchant_id?: string }).merchant_id;
    if (m !== undefined && !req.validationError) await assertMerchant(app.db, m);
  });
  for (const routes of [merchants, catalog, orders, webhooks, requests]) await app.register(routes);
};
