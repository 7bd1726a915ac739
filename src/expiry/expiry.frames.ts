import { Type, type Static } from '@fastify/type-provider-typebox';
import { frame, type FrameDeclaration } from '#src/realtime/frames.js';
import { ExpiringItemSchema } from './expiry.schemas.js';

/** The socket frame of the daily expiry digest (src/app.frames.ts joins it with the others). */

const ExpiryDigestFrame = frame('expiryDigest', {
  inventoryId: Type.String(),
  day: Type.String({ description: 'YYYY-MM-DD' }),
  expired: Type.Array(ExpiringItemSchema),
  expiringSoon: Type.Array(ExpiringItemSchema),
});

export type ExpiryServerFrame = Static<typeof ExpiryDigestFrame>;

export const expiryFrames: FrameDeclaration = {
  server: [ExpiryDigestFrame],
  client: [],
  summaries: { expiryDigest: "The day's expired and soon-expiring items of the inventory" },
  malformed: {},
};
