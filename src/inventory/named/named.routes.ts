import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '#src/http/auth.js';
import { errors, errorWith } from '#src/http/schemas.js';
import { createdOrOk, noContent } from '#src/http/route-docs.js';
import { NamedId, NamedInput, inventoryDoc, WHO } from '#src/inventory/inventory.schemas.js';
import type { NamedService } from './named.service.js';

const Named = Type.Ref('InventoryNamed');

/** /api/inventory/categories or /locations: registered inside inventoryRoutes. */
export function namedRoutes(
  service: NamedService,
  plural: 'categories' | 'locations',
): FastifyPluginAsyncTypebox {
  const base = `/api/inventory/${plural}`;
  const one = plural === 'categories' ? 'category' : 'location';
  const nameTaken = errorWith(
    `conflict: the name is taken (\`${one}\` is the existing record), or no inventory`,
    { [one]: Named },
  );
  return async (app) => {
    app.get(
      base,
      inventoryDoc(`List the ${plural}. ${WHO}`, { response: { 200: Type.Array(Named) } }),
      (request) => service.list(callerOf(request)),
    );

    app.post(
      base,
      inventoryDoc(
        `Create a ${one} (201; id optional); a name in use is 409 carrying \`${one}\`. ${WHO}`,
        { body: NamedInput, response: { 200: Named, 201: Named, 409: nameTaken, ...errors(400) } },
      ),
      async (request, reply) => {
        const saved = await service.create(callerOf(request), request.body);
        return createdOrOk(reply, saved.created, saved.record);
      },
    );

    app.put(
      `${base}/:id`,
      inventoryDoc(`Create (201) or rename (200) the ${one}. ${WHO}`, {
        params: Type.Object({ id: NamedId }),
        body: NamedInput,
        response: { 200: Named, 201: Named, 409: nameTaken, ...errors(400) },
      }),
      async (request, reply) => {
        const saved = await service.put(callerOf(request), request.params.id, request.body);
        return createdOrOk(reply, saved.created, saved.record);
      },
    );

    app.delete(
      `${base}/:id`,
      inventoryDoc(`Delete the ${one} (idempotent); 409 while items use it. ${WHO}`, {
        params: Type.Object({ id: NamedId }),
        response: { 204: Type.Null(), ...errors(400) },
      }),
      async (request, reply) =>
        noContent(reply, service.remove(callerOf(request), request.params.id)),
    );
  };
}
