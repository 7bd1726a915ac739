import { Writable } from 'node:stream';
import Fastify from 'fastify';
import pretty from 'pino-pretty';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '#src/config.js';
import { logSeedAdmin, seedAdminBanner, usePrettyLogs } from '#src/http/logging.js';
import { useTestApp } from '#test/helpers/fixtures.js';

describe('log format', () => {
  it('LARDER_LOG_FORMAT: auto by default; json, pretty; anything else refused', () => {
    expect(loadConfig({}).logFormat).toBe('auto');
    expect(loadConfig({ LARDER_LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(loadConfig({ LARDER_LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(() => loadConfig({ LARDER_LOG_FORMAT: 'xml' })).toThrow(
      'LARDER_LOG_FORMAT: must be auto, json or pretty (got "xml")',
    );
  });

  it('auto is readable on a terminal and JSON when piped; json always wins', () => {
    expect(usePrettyLogs('auto', true)).toBe(true);
    expect(usePrettyLogs('auto', false)).toBe(false);
    expect(usePrettyLogs('json', true)).toBe(false);
    expect(usePrettyLogs('pretty', false)).toBe(true);
  });

  it('pino-pretty turns a log entry into one readable line', async () => {
    let out = '';
    const sink = new Writable({
      write(chunk, _enc, done) {
        out += String(chunk);
        done();
      },
    });
    const app = Fastify({
      logger: { stream: pretty({ colorize: false, ignore: 'pid,hostname', destination: sink }) },
    });
    app.log.info({ backup: 'x.sql.gz' }, 'backup written');
    await app.close();
    expect(out).toMatch(/INFO.*backup written/);
    expect(out).not.toMatch(/^\{/);
  });
});

describe('the generated admin password at first start', () => {
  const t = useTestApp('sqlite');

  it('is shown in a framed block that says where to change it', async () => {
    const warnings: string[] = [];
    const log = { warn: (msg: string) => warnings.push(msg), info: () => {} };
    logSeedAdmin(log, await t.app.larder.users.ensureSeedAdmin('second-admin', null));
    expect(warnings).toHaveLength(1);
    const banner = warnings[0]!;
    const password = /password: (\S+)/.exec(banner)?.[1];
    expect(password).toMatch(/^[\w-]{16}$/);
    expect(banner).toContain('username: second-admin');
    expect(banner).toContain('My account');
    expect(banner).toContain('npx larder reset-password second-admin');
    const lines = banner.trim().split('\n');
    expect(lines[0]).toMatch(/^┌─+┐$/);
    expect(lines.at(-1)).toMatch(/^└─+┘$/);
    expect(new Set(lines.map((l) => l.length)).size).toBe(1); // a closed frame
    expect(banner).toBe(seedAdminBanner('second-admin', password!));
    // a second start with the account in place shows nothing
    logSeedAdmin(log, await t.app.larder.users.ensureSeedAdmin('second-admin', null));
    expect(warnings).toHaveLength(1);
  });
});
