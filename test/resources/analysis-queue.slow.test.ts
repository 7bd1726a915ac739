import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_QUEUED_ANALYSES } from '#src/resources/analysis/analysis.pool.js';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { analyze, filesUnder } from './helpers.js';
import { slowZip } from './hostile-files.js';

describe.each(DIALECTS)('the analysis queue (%s)', (dialect) => {
  const t = useTestApp(dialect, {
    extraEnv: { LARDER_ANALYZE_TIMEOUT: '1', LARDER_ANALYZE_WORKERS: '1' },
  });

  it('beyond one running and four waiting analyses the answer is 503 with Retry-After', async () => {
    const slow = slowZip();
    const answers = await Promise.all(
      Array.from({ length: MAX_QUEUED_ANALYSES + 2 }, (_, i) =>
        analyze(t.app, t.admin, `slow-${i}.zip`, slow),
      ),
    );
    const statuses = answers.map((res) => res.statusCode).sort();
    expect(statuses).toEqual([...Array(MAX_QUEUED_ANALYSES + 1).fill(422), 503]);
    const busy = answers.find((res) => res.statusCode === 503)!;
    expect(busy.headers['retry-after']).toBe('1');
    expect(busy.json()).toEqual({
      code: 'unavailable',
      message: 'Too many files are being analyzed; try again in 1 s',
    });
    expect(filesUnder(path.join(t.config.dataDir, 'staging'))).toEqual([]);
  }, 120_000);
});
