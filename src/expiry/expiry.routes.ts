import { Type } from '@fastify/type-provider-typebox';
import { callerOf, type Guards } from '#src/http/auth.js';
import { errors, refTo } from '#src/http/schemas.js';
import { noContent, type Routes } from '#src/http/route-docs.js';
import { adminInventoryDoc, inventoryDoc, WHO } from '#src/inventory/inventory.schemas.js';
import {
  ExpiringItemSchema,
  ExpiringQuery,
  ExpiringResponse,
  ExpirySettingsInput,
  ExpirySettingsSchema,
  WebhookInput,
  WebhookSchema,
} from './expiry.schemas.js';
import type { ExpiryService } from './expiry.service.js';
import type { Webhooks } from './webhooks.service.js';

/** /api/inventory/expiring and /api/inventory/expiry/settings: any signed-in user. */
export const expiryRoutes: Routes<{ expiry: ExpiryService; guards: Guards }> =
  ({ expiry, guards }) =>
  async (app) => {
    app.addSchema(ExpiringItemSchema);
    guards.guardRoutes(app, guards.authenticate);

    app.get(
      '/api/inventory/expiring',
      inventoryDoc(
        `Items expired or expiring within withinDays (default expiryNoticeDays), soonest first, with days left. ${WHO}`,
        { querystring: ExpiringQuery, response: { 200: ExpiringResponse, ...errors(400) } },
      ),
      (request) => expiry.expiring(callerOf(request), request.query.withinDays),
    );

    app.get(
      '/api/inventory/expiry/settings',
      inventoryDoc(`The expiry notice days and daily digest hour of the inventory. ${WHO}`, {
        response: { 200: ExpirySettingsSchema },
      }),
      (request) => expiry.settings(callerOf(request)),
    );

    app.put(
      '/api/inventory/expiry/settings',
      inventoryDoc(
        `Set expiryNoticeDays (0-3650) and/or expiryDigestHour (0-23, server time zone). ${WHO}`,
        { body: ExpirySettingsInput, response: { 200: ExpirySettingsSchema, ...errors(400) } },
      ),
      (request) => expiry.putSettings(callerOf(request), request.body),
    );
  };

/** /api/admin/inventories/{id}/webhook: admins only. */
export const adminWebhookRoutes: Routes<{ webhooks: Webhooks; guards: Guards }> =
  ({ webhooks, guards }) =>
  async (app) => {
    app.addSchema(WebhookSchema);
    guards.guardRoutes(app, guards.requireAdmin);
    const Webhook = refTo(WebhookSchema);

    app.get(
      '/api/admin/inventories/:id/webhook',
      adminInventoryDoc("Admin: the inventory's expiry digest webhook (without its secret)", {
        response: { 200: Webhook },
      }),
      (request) => webhooks.get(request.params.id),
    );

    app.put(
      '/api/admin/inventories/:id/webhook',
      adminInventoryDoc(
        'Admin: set the webhook that receives the daily expiry digest (http/https URL, ' +
          'HMAC-SHA256 secret, optional ntfy topic)',
        { body: WebhookInput, response: { 200: Webhook } },
      ),
      (request) => webhooks.put(request.params.id, request.body),
    );

    app.delete(
      '/api/admin/inventories/:id/webhook',
      adminInventoryDoc('Admin: remove the webhook and its pending deliveries', {
        response: { 204: Type.Null() },
      }),
      async (request, reply) => noContent(reply, webhooks.remove(request.params.id)),
    );
  };
