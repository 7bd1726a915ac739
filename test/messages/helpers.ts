import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Session } from '#test/helpers/app.js';

/** Sends a message through POST /api/messages and returns it as stored (a 201 is expected). */
export async function sendMessage(
  app: FastifyInstance,
  from: Session,
  to: Session,
  body: string,
): Promise<any> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/messages',
    headers: from.headers,
    payload: { receiverId: to.userId, body },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}
