import { describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { fuzzMultipart, fuzzRoutes, fuzzSocketFrames, type FuzzFigures } from './fuzz.js';

/** The larger fuzz run of the slow tier; prints its figures. */
describe.each(DIALECTS)('fuzzing, long run (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const [anna] = t.users('anna');
  const figures: FuzzFigures = { cases: 0, byStatus: {} };

  it('holds for thousands of hostile requests, bodies and frames', async () => {
    await fuzzRoutes(t.app, [t.admin, anna], 5000, figures);
    await fuzzMultipart(t.app, t.admin, 1000, figures);
    await fuzzSocketFrames(t.app, anna, 200, figures);
    process.stdout.write(
      `fuzz (${dialect}): ${figures.cases} cases, by status ${JSON.stringify(figures.byStatus)}\n`,
    );
    expect(figures.cases).toBe(6200);
  }, 900_000);
});
