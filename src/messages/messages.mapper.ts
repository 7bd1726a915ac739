import { Type, type Static } from '@fastify/type-provider-typebox';
import { Nullable } from '../http/schemas.js';
import type { MessageRow } from './messages.repository.js';

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
