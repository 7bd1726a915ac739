import { create as contentDisposition } from 'content-disposition';
import { Type } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Guards } from '#src/http/auth.js';
import { forbidden } from '#src/http/errors.js';
import { fileResponses } from '#src/http/openapi.js';
import { errors, refTo } from '#src/http/schemas.js';
import { documented, noContent, type Routes } from '#src/http/route-docs.js';
import { FILE_HEADERS } from '#src/http/security-headers.js';
import { sendFile } from '#src/http/send-file.js';
import { BackupEntrySchema, BackupInfoSchema } from './backups.schemas.js';
import type { BackupsService } from './backups.service.js';

const NameParams = Type.Object({
  name: Type.String({
    pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,200}\\.sql\\.gz$',
    description: 'a file name from the backup list',
  }),
});

async function adminOnly(request: FastifyRequest): Promise<void> {
  if (!request.user?.isAdmin) throw forbidden();
}

/** /api/admin/backups: admins only. */
export const adminBackupRoutes: Routes<{ backups: BackupsService; guards: Guards }> =
  ({ backups, guards }) =>
  async (app) => {
    app.addSchema(BackupEntrySchema);
    const BackupEntry = refTo(BackupEntrySchema);
    const doc = documented('admin: backups', {
      onRequest: guards.requireAdmin,
      errors: [401, 403],
    });

    app.get(
      '/api/admin/backups',
      doc('Admin: list the backups (*.sql.gz in the backup directory), newest first', {
        response: { 200: Type.Array(BackupEntry) },
      }),
      () => backups.list(),
    );

    app.post(
      '/api/admin/backups',
      doc('Admin: write a backup now (a consistent snapshot of every table)', {
        response: { 201: BackupEntry },
      }),
      async (_request, reply) => reply.status(201).send(await backups.create()),
    );

    app.post(
      '/api/admin/backups/:name/verify',
      doc(
        'Admin: the restore drill again on a kept backup (restored into a scratch database, rows compared); the entry with its new verifiedAt / verifyError',
        {
          params: NameParams,
          response: { 200: BackupEntry, ...errors(400, 404) },
        },
      ),
      (request) => backups.verify(request.params.name),
    );

    app.get(
      '/api/admin/backups/info',
      doc('Admin: the backup directory, schedule and retention', {
        response: { 200: BackupInfoSchema },
      }),
      () => backups.info(),
    );

    app.delete(
      '/api/admin/backups/:name',
      doc('Admin: delete a backup (a name from the list; nothing outside the directory)', {
        params: NameParams,
        response: { 204: Type.Null(), ...errors(400, 404) },
      }),
      async (request, reply) => noContent(reply, backups.remove(request.params.name)),
    );

    app.get(
      '/api/admin/backups/:name',
      doc(
        'Admin: download a backup (gzip-compressed SQL; Range and ETag); bearer header or ?token=',
        {
          params: NameParams,
          querystring: Type.Object({ token: Type.Optional(Type.String()) }),
          response: {
            ...fileResponses({ ranges: true, attachment: true, type: 'application/gzip' }),
            ...errors(400, 404),
          },
        },
        {
          // the admin UI downloads through a plain link: the token may come as ?token=
          onRequest: [guards.authenticateAllowingQueryToken, adminOnly],
          config: { access: 'admin' },
          compress: false,
          helmet: FILE_HEADERS,
        },
      ),
      async (request, reply) => {
        return sendFile(request, reply, {
          path: { storage: backups.storage, key: await backups.file(request.params.name) },
          contentType: 'application/gzip',
          cacheControl: 'no-store',
          headers: { 'content-disposition': contentDisposition(request.params.name) },
        });
      },
    );
  };
