// Captured before the app (or anything that might load pdf.js) is imported: the server's realm
// must keep the engine's own JSON functions (pdf.js's core-js polyfills replaced them).
const pristine = { stringify: JSON.stringify, parse: JSON.parse };

const path = await import('node:path');
const { describe, expect, it } = await import('vitest');
const { loadConfig, ConfigError } = await import('#src/config.js');
const { DIALECTS } = await import('#test/helpers/app.js');
const { useTestApp } = await import('#test/helpers/fixtures.js');
const { analyze, filesUnder } = await import('./helpers.js');
const { slowZip } = await import('./hostile-files.js');

describe.each(DIALECTS)('analysis runs in a worker thread (%s)', (dialect) => {
  // a deadline a ZIP of 1,000 EPUBs (the most an archive may hold) always passes and a real file,
  // read by a worker that loads pdf.js on a busy machine, never does
  const t = useTestApp(dialect, { extraEnv: { LARDER_ANALYZE_TIMEOUT: '3' } });
  const admin = t.admin;
  const staged = () => filesUnder(path.join(t.config.dataDir, 'staging')).sort();

  it("after start and an analysis, JSON.stringify and JSON.parse are still the engine's own", async () => {
    const res = await analyze(t.app, admin, 'water-guide.pdf');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()[0].title).toBe('Storing Drinking Water');
    expect(JSON.stringify).toBe(pristine.stringify);
    expect(JSON.parse).toBe(pristine.parse);
    expect(Object.keys(globalThis).filter((key) => /core-js|pdfjs/i.test(key))).toEqual([]);
  });

  it('an analysis past its deadline is 422 analysis_failed naming the file; the worker is replaced', async () => {
    const before = staged();
    const res = await analyze(t.app, admin, 'slow.zip', slowZip(1000));
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json()).toEqual({
      code: 'analysis_failed',
      message:
        'Analysis of slow.zip was stopped after 3 s; the file may be damaged or built to keep the server busy',
    });
    expect(staged()).toEqual(before); // neither the upload nor anything unpacked from it
    const next = await analyze(t.app, admin, 'pantry-recipes.epub');
    expect(next.statusCode, next.body).toBe(200);
    expect(next.json()[0].title).toBe('Pantry Recipes');
  }, 60_000);
});

describe('analysis configuration', () => {
  it('LARDER_ANALYZE_WORKERS and LARDER_ANALYZE_TIMEOUT have defaults and are validated', () => {
    const config = loadConfig({});
    expect(config.analyzeWorkers).toBe(1);
    expect(config.analyzeTimeoutSeconds).toBe(30);
    expect(loadConfig({ LARDER_ANALYZE_WORKERS: '3', LARDER_ANALYZE_TIMEOUT: '2m' })).toMatchObject(
      {
        analyzeWorkers: 3,
        analyzeTimeoutSeconds: 120,
      },
    );
    expect(() => loadConfig({ LARDER_ANALYZE_WORKERS: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ LARDER_ANALYZE_TIMEOUT: '0' })).toThrow(ConfigError);
  });
});
