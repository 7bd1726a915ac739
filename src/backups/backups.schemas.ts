import { Type, type Static } from '@fastify/type-provider-typebox';

/** One dump file in the backup directory. */
export const BackupEntrySchema = Type.Object(
  {
    name: Type.String({ description: 'file name, ending in .sql.gz' }),
    sizeBytes: Type.Integer(),
    createdAt: Type.Integer({ description: 'epoch ms of the snapshot' }),
    verifiedAt: Type.Union([Type.Integer(), Type.Null()], {
      description:
        'epoch ms of its restore drill (restored into a scratch database, rows compared table by table); null: never verified',
    }),
    verifyError: Type.Union([Type.String(), Type.Null()], {
      description: 'what the restore drill found wrong; null when it passed or never ran',
    }),
  },
  { $id: 'BackupEntry' },
);
export type BackupEntry = Static<typeof BackupEntrySchema>;

/** GET /api/admin/backups/info: where backups are written and how they are kept. */
export const BackupInfoSchema = Type.Object({
  directory: Type.String({ description: 'the backup directory in use (after any fallback)' }),
  intervalSeconds: Type.Integer({ description: 'time between scheduled backups; 0: no schedule' }),
  keep: Type.Integer({ description: 'how many server-made backups are kept' }),
});
export type BackupInfo = Static<typeof BackupInfoSchema>;
