import Type from 'typebox';
import { flag, oneOf, secret, text } from './config.kinds.js';

/** Where files live: the data dir's folders, or S3-compatible object storage. */
export const storageKind = {
  LARDER_STORAGE: oneOf(['folder', 's3'], {
    default: 'folder',
    description:
      '`folder`: resources, analysis staging, backups and `static/` (the APK) in the data dir and `LARDER_BACKUP_DIR`; `s3`: in the bucket `LARDER_S3_*` names, so instances on several hosts share them (docs/operations.md "Files in object storage")',
  }),
};

/** The LARDER_S3_* settings: read only when LARDER_STORAGE=s3 (else ignored). */
export const s3Variables = {
  LARDER_S3_ENDPOINT: Type.Optional(
    text({
      unset: 'unset: AWS S3 of the region',
      description:
        'the S3-compatible service, `https://s3.example.org` (MinIO, Garage, Ceph, a provider)',
      check: isHttpUrl,
      error: 'must be an http:// or https:// URL',
    }),
  ),
  LARDER_S3_BUCKET: text({
    unset: 'required with `s3`',
    description:
      'the bucket (it must exist); keys are `resources/`, `staging/`, `backups/`, `static/`',
    pattern: /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
    error: 'must be a bucket name (3-63 of a-z 0-9 . -), set with LARDER_STORAGE=s3',
  }),
  LARDER_S3_REGION: text({ default: 'us-east-1', description: 'the region to sign requests for' }),
  LARDER_S3_ACCESS_KEY_ID: text({
    unset: 'required with `s3`',
    description: 'the access key',
    error: 'must be set with LARDER_STORAGE=s3',
  }),
  LARDER_S3_SECRET_ACCESS_KEY: secret({
    unset: 'required with `s3`',
    description: 'the secret key (never logged)',
    error: 'must be set with LARDER_STORAGE=s3',
  }),
  LARDER_S3_FORCE_PATH_STYLE: flag({
    description:
      '`https://endpoint/bucket/key` instead of `https://bucket.endpoint/key` (MinIO, Garage and most self-hosted services need it)',
  }),
};

function isHttpUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
