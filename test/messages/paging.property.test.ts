import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';

describe.each(DIALECTS)('paging a conversation (%s)', (dialect) => {
  let now = Date.now();
  let run = 0;
  const t = useTestApp(dialect, { clock: { now: () => now, advance: (ms) => (now += ms) } });

  it('with before=<oldest sentAt> returns every message exactly once, in send order', async () => {
    await fc.assert(
      fc.asyncProperty(
        // steps between messages: 0 makes ties within one millisecond
        fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 0, maxLength: 25 }),
        fc.integer({ min: 1, max: 6 }),
        async (steps, limit) => {
          run += 1;
          const a = await t.createUser(`pa${run}`);
          const b = await t.createUser(`pb${run}`);
          const sent: string[] = [];
          for (const [i, step] of steps.entries()) {
            now += step;
            const [from, to] = i % 3 === 0 ? [b, a] : [a, b];
            const res = await t.app.inject({
              method: 'POST',
              url: '/api/messages',
              headers: from.headers,
              payload: { receiverId: to.userId, body: `#${i}` },
            });
            sent.push(res.json().id);
          }
          now += 1;

          const seen: string[] = [];
          let before = '';
          for (let pages = 0; pages <= sent.length + 1; pages++) {
            const res = await t.app.inject({
              method: 'GET',
              url: `/api/messages/${b.userId}?limit=${limit}${before}`,
              headers: a.headers,
            });
            const page = res.json();
            if (page.length === 0) break;
            expect(page.length).toBeGreaterThanOrEqual(Math.min(limit, sent.length - seen.length));
            seen.unshift(...page.map((m: any) => m.id));
            before = `&before=${page[0].sentAt}`;
          }
          expect(seen).toEqual(sent);
        },
      ),
      { numRuns: 25 },
    );
  });
});
