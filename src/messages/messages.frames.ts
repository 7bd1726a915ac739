import { Type, type Static } from '@fastify/type-provider-typebox';
import { frame, type FrameDeclaration } from '#src/realtime/frames.js';
import { MessageSchema } from './messages.mapper.js';

/** The socket frames of messaging (src/app.frames.ts joins them with the others). */

const NewMessageFrame = frame('new_message', { message: MessageSchema });

const MessageDeliveredFrame = frame('message_delivered', {
  messageId: Type.String(),
  deliveredAt: Type.Integer({ description: 'epoch milliseconds' }),
});

const AckFrame = frame('ack', {
  messageId: Type.Optional(Type.String()),
  messageIds: Type.Optional(
    Type.Array(Type.String(), { description: 'takes the place of messageId' }),
  ),
});

export type MessagesServerFrame = Static<typeof NewMessageFrame | typeof MessageDeliveredFrame>;
export type AckFrame = Static<typeof AckFrame>;

export const messagesFrames: FrameDeclaration = {
  server: [NewMessageFrame, MessageDeliveredFrame],
  client: [AckFrame],
  summaries: {
    new_message: 'A message to this user; answer with ack {messageId}',
    message_delivered: "The receiver acknowledged the sender's message",
    ack: 'Marks messages delivered to this user: messageId, or messageIds for a batch',
  },
  // docs/messaging.md: malformed acks are ignored, the socket stays open
  malformed: { ack: null },
};
