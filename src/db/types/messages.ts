import type { Generated } from 'kysely';

export interface MessagesTable {
  /** storage order: "send order" even when sent_at ties */
  seq: Generated<number>;
  id: string;
  sender_id: string;
  receiver_id: string;
  body: string;
  sent_at: number;
  /** null until delivered; set once, never changed */
  delivered_at: number | null;
}
