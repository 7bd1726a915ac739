import { describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { fuzzMultipart, fuzzRoutes, fuzzSocketFrames, useFuzzedApp } from './fuzz.js';

/** The CI-sized fuzz run (a larger one is fuzz.slow.test.ts): seconds per dialect. */
describe.each(DIALECTS)('fuzzing (%s)', (dialect) => {
  const { t, anna, figures } = useFuzzedApp(dialect);

  it('never answers 5xx nor writes on a 4xx, for hostile requests to every route', async () => {
    await fuzzRoutes(t.app, [t.admin, anna], 400, figures);
  }, 120_000);

  it('refuses broken multipart bodies with a 4xx and keeps nothing', async () => {
    await fuzzMultipart(t.app, t.admin, 100, figures);
  }, 60_000);

  it('survives hostile socket frames', async () => {
    await fuzzSocketFrames(t.app, anna, 20, figures);
    expect(figures.cases).toBe(520);
  }, 60_000);
});
