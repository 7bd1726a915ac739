import { Type, type Static } from '@fastify/type-provider-typebox';

/** One dump file in the backup directory. */
export const BackupEntrySchema = Type.Object(
  {
    name: Type.String({ description: 'file name, ending in .sql.gz' }),
    sizeBytes: Type.Integer(),
    createdAt: Type.Integer({ description: 'epoch ms of the snapshot' }),
  },
  { $id: 'BackupEntry' },
);
export type BackupEntry = Static<typeof BackupEntrySchema>;
