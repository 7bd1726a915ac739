import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '#src/config.js';

const BASE = { LARDER_DATA_DIR: '/tmp/larder-config-test' };
const S3 = {
  LARDER_STORAGE: 's3',
  LARDER_S3_BUCKET: 'larder-files',
  LARDER_S3_ACCESS_KEY_ID: 'key-id',
  LARDER_S3_SECRET_ACCESS_KEY: 'very-secret-key',
};

describe('storage settings', () => {
  it('folder by default; s3 with its settings, path style and region as given', () => {
    expect(loadConfig(BASE).storage).toEqual({ kind: 'folder' });
    const config = loadConfig({
      ...BASE,
      ...S3,
      LARDER_S3_ENDPOINT: 'https://s3.example.org',
      LARDER_S3_FORCE_PATH_STYLE: 'true',
      LARDER_S3_REGION: 'eu-central-1',
    });
    expect(config.storage).toEqual({
      kind: 's3',
      endpoint: 'https://s3.example.org',
      bucket: 'larder-files',
      region: 'eu-central-1',
      accessKeyId: 'key-id',
      secretAccessKey: 'very-secret-key',
      forcePathStyle: true,
    });
  });

  it('LARDER_S3_* are ignored while LARDER_STORAGE is folder', () => {
    expect(loadConfig({ ...BASE, LARDER_S3_BUCKET: 'Not A Bucket' }).storage).toEqual({
      kind: 'folder',
    });
  });

  it.each([
    [{ LARDER_STORAGE: 'nfs' }, /^LARDER_STORAGE: .*folder.*s3/],
    [{ LARDER_S3_BUCKET: undefined }, /^LARDER_S3_BUCKET: /],
    [{ LARDER_S3_BUCKET: 'Bad_Bucket' }, /^LARDER_S3_BUCKET: must be a bucket name/],
    [{ LARDER_S3_ACCESS_KEY_ID: '' }, /^LARDER_S3_ACCESS_KEY_ID: must be set/],
    [{ LARDER_S3_SECRET_ACCESS_KEY: undefined }, /^LARDER_S3_SECRET_ACCESS_KEY: must be set/],
    [{ LARDER_S3_ENDPOINT: 'ftp://files' }, /^LARDER_S3_ENDPOINT: must be an http/],
    [{ LARDER_S3_FORCE_PATH_STYLE: 'maybe' }, /^LARDER_S3_FORCE_PATH_STYLE: /],
  ])('a bad S3 setting (%o) is a ConfigError naming it', (change, message) => {
    const env: Record<string, string | undefined> = { ...BASE, ...S3, ...change };
    const load = () => loadConfig(env);
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(message);
  });

  it('the secret key is never repeated in an error', () => {
    try {
      loadConfig({ ...BASE, ...S3, LARDER_S3_SECRET_ACCESS_KEY: ' ', LARDER_S3_BUCKET: 'x' });
      expect.unreachable();
    } catch (err) {
      expect(String(err)).not.toContain('very-secret-key');
    }
  });
});
