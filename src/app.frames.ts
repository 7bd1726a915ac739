import { expiryFrames, type ExpiryServerFrame } from './expiry/expiry.frames.js';
import {
  messagesFrames,
  type AckFrame,
  type MessagesServerFrame,
} from './messages/messages.frames.js';
import { socketFrames, type HubClientFrame, type HubServerFrame } from './realtime/frames.js';

/**
 * Every frame of /ws/sync: the hub's own and those each feature declares in its
 * `<feature>.frames.ts`. The hub checks client frames against these, sends only these, and the
 * AsyncAPI document (/api/asyncapi.json) lists them.
 */
export const appFrames = socketFrames([expiryFrames, messagesFrames]);

export const { ServerFrameSchema, ClientFrameSchema } = appFrames;
export type ServerFrame = HubServerFrame | ExpiryServerFrame | MessagesServerFrame;
export type ClientFrame = HubClientFrame | AckFrame;
