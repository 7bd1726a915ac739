import { Type, type Static } from '@fastify/type-provider-typebox';
import { Nullable, Uuid } from '#src/http/schemas.js';
import type { MessageRow } from './messages.repository.js';
import { MAX_BODY_CHARACTERS } from './messages.rules.js';

/** MessageDto on the wire: the same JSON in HTTP responses and in socket frames. */
export const MessageSchema = Type.Object(
  {
    id: Type.String(),
    senderId: Type.String(),
    senderUsername: Type.String(),
    receiverId: Type.String(),
    body: Type.String(),
    sentAt: Type.Integer({ description: 'epoch milliseconds, set by the server when stored' }),
    deliveredAt: Nullable(
      Type.Integer({ description: 'epoch milliseconds; null until the receiver has it' }),
    ),
  },
  { $id: 'Message' },
);
export type MessageDto = Static<typeof MessageSchema>;

/** What a client sends to POST /api/messages. */
export const SendBody = Type.Object(
  {
    receiverId: Type.String({ maxLength: 100, description: 'the id of the receiving user' }),
    body: Type.String({
      maxLength: MAX_BODY_CHARACTERS,
      description: `1-${MAX_BODY_CHARACTERS} characters, not only whitespace`,
    }),
    id: Type.Optional({
      ...Uuid,
      description: 'client-generated UUID: a retry with the same id and content is answered 200',
    }),
  },
  { additionalProperties: false },
);
export type SendInput = Static<typeof SendBody>;

export function toMessageDto(row: MessageRow): MessageDto {
  return {
    id: row.id,
    senderId: row.sender_id,
    senderUsername: row.sender_username,
    receiverId: row.receiver_id,
    body: row.body,
    sentAt: row.sent_at,
    deliveredAt: row.delivered_at,
  };
}
