import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '#src/http/auth.js';
import { errors } from '#src/http/schemas.js';
import { noContent } from '#src/http/route-docs.js';
import { SettingsInput, inventoryDoc, WHO } from '#src/inventory/inventory.schemas.js';
import type { SettingsService } from './settings.service.js';

/** /api/inventory/settings: registered inside inventoryRoutes. */
export function settingsRoutes(settings: SettingsService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/inventory/settings',
      inventoryDoc(`Every setting as an object of strings. ${WHO}`, {
        response: { 200: SettingsInput },
      }),
      (request) => settings.get(callerOf(request)),
    );

    app.put(
      '/api/inventory/settings',
      inventoryDoc(`Merge the settings sent into the stored ones; returns all. ${WHO}`, {
        body: SettingsInput,
        response: { 200: SettingsInput, ...errors(400) },
      }),
      (request) => settings.merge(callerOf(request), request.body),
    );

    app.delete(
      '/api/inventory/settings/:key',
      inventoryDoc(`Delete one setting (idempotent). ${WHO}`, {
        params: Type.Object({ key: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: { 204: Type.Null(), ...errors(400) },
      }),
      async (request, reply) =>
        noContent(reply, settings.remove(callerOf(request), request.params.key)),
    );
  };
}
