import { Type } from '@fastify/type-provider-typebox';
import type { Guards } from '#src/http/auth.js';
import { callerOf } from '#src/http/auth.js';
import { errors, refTo } from '#src/http/schemas.js';
import { createdOrOk, documented, type Routes } from '#src/http/route-docs.js';
import { MessageSchema, SendBody } from './messages.mapper.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type MessagesService } from './messages.service.js';

const ConversationQuery = Type.Object(
  {
    before: Type.Optional(
      Type.Integer({ minimum: 0, description: 'only messages sent before this (epoch ms)' }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE }),
    ),
  },
  { additionalProperties: false },
);

/** /api/messages: direct messages between signed-in users. */
export const messageRoutes: Routes<{ messages: MessagesService; guards: Guards }> =
  ({ messages, guards }) =>
  async (app) => {
    app.addSchema(MessageSchema);
    const Message = refTo(MessageSchema);
    guards.guardRoutes(app, guards.authenticate);
    const doc = documented('messages', { errors: [401] });

    app.post(
      '/api/messages',
      doc(
        'Send a message to another user (any signed-in user). Stored before it is pushed; ' +
          '201 when stored, 200 when a retry with the same id returns the stored message.',
        { body: SendBody, response: { 200: Message, 201: Message, ...errors(400, 404, 409, 429) } },
      ),
      async (request, reply) => {
        const saved = await messages.send(callerOf(request), request.body);
        return createdOrOk(reply, saved.created, saved.message);
      },
    );

    app.get(
      '/api/messages/:userId',
      doc(
        'The conversation between the caller (any signed-in user) and another user, newest ' +
          'last; marks what the caller received in it as delivered.',
        {
          params: Type.Object({ userId: Type.String({ maxLength: 100 }) }),
          querystring: ConversationQuery,
          response: { 200: Type.Array(Message), ...errors(400, 404) },
        },
      ),
      (request) => messages.conversation(callerOf(request), request.params.userId, request.query),
    );
  };
