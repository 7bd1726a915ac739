import type { FastifyInstance } from 'fastify';
import type { Session } from '#test/helpers/app.js';

/** POST /api/admin/backups as `admin`: writes a backup now. */
export function postBackup(app: FastifyInstance, admin: Session) {
  return app.inject({ method: 'POST', url: '/api/admin/backups', headers: admin.headers });
}
