import type { FastifyInstance } from 'fastify';

/** A sign-in from `remoteAddress`, as the throttle sees it. */
export const loginFrom = (
  app: FastifyInstance,
  username: string,
  password: string,
  remoteAddress: string,
) =>
  app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { username, password },
    remoteAddress,
  });
