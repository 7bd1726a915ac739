import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Guards } from '#src/http/auth.js';
import { callerOf } from '#src/http/auth.js';
import { errors, refTo } from '#src/http/schemas.js';
import { documented, noContent } from '#src/http/route-docs.js';
import { PushSubscriptionSchema, SubscribeBody, VapidSchema } from './push.schemas.js';
import type { PushService } from './push.service.js';

/** /api/push: the VAPID public key and the caller's UnifiedPush subscriptions. */
export function pushRoutes(deps: { push: PushService; guards: Guards }): FastifyPluginAsyncTypebox {
  const { push, guards } = deps;
  return async (app) => {
    app.addSchema(PushSubscriptionSchema);
    const Subscription = refTo(PushSubscriptionSchema);
    const common = { tags: ['push'] };
    const signedIn = documented('push', { onRequest: guards.authenticate, errors: [401] });

    app.get(
      '/api/push/vapid',
      {
        schema: {
          ...common,
          summary: 'The VAPID public key pushes are signed with (public)',
          response: { 200: VapidSchema },
        },
      },
      () => push.publicKey(),
    );

    app.post(
      '/api/push/subscriptions',
      signedIn(
        "Register the app's UnifiedPush endpoint for this sign-in session (any signed-in " +
          'user). The endpoint must answer GET with {"unifiedpush":{"version":1}}; the same ' +
          'endpoint again updates its subscription. It ends with the session.',
        { body: SubscribeBody, response: { 201: Subscription, ...errors(400, 409) } },
      ),
      async (request, reply) =>
        reply.status(201).send(await push.subscribe(callerOf(request), request.body)),
    );

    app.get(
      '/api/push/subscriptions',
      signedIn("The caller's push subscriptions (all their sessions)", {
        response: { 200: Type.Array(Subscription) },
      }),
      (request) => push.list(callerOf(request)),
    );

    app.delete(
      '/api/push/subscriptions/:id',
      signedIn("Remove one of the caller's push subscriptions", {
        params: Type.Object({ id: Type.String({ maxLength: 100 }) }),
        response: { 204: Type.Null(), ...errors(404) },
      }),
      async (request, reply) => noContent(reply, push.remove(callerOf(request), request.params.id)),
    );
  };
}
