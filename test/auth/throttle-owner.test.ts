import { describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { loginFrom } from './helpers.js';

const HOUR = 60 * 60 * 1000;
/** What docs/security.md ("Sign-in throttling") promises with the default limit and window. */
/** each address: L failures per 15-minute window, 4 windows: 2 × 10 × 4 */
const GUESSES_PER_HOUR_FEW_ADDRESSES = 80;
/** two lanes × 4 windows × (L free + 6 doubling delays + 14 one-minute delays) */
const GUESSES_PER_HOUR_ANY_ADDRESSES = 240;

/**
 * Attackers poll one username with wrong passwords, each taking every attempt
 * the moment the throttle allows it (they wait exactly the Retry-After they are given), on a
 * simulated clock; the owner signs in from an address of their own in between.
 */
describe.each(DIALECTS)('an attacker cannot keep the owner out (%s)', (dialect) => {
  // a clock that only moves when told: the figures do not depend on how loaded the machine is
  let now = Date.now();
  const clock = { now: () => now, advance: (ms: number) => void (now += ms) };
  const t = useTestApp(dialect, { clock });
  t.users('olga', 'pia');
  const login = (username: string, password: string, remoteAddress: string) =>
    loginFrom(t.app, username, password, remoteAddress);

  /**
   * Runs attackers (each a function giving the address of its next attempt) and the owner's
   * sign-ins at the given offsets for `duration` of simulated time; returns the attackers'
   * counted guesses (401: their password was compared) and the owner's results.
   */
  async function siege(
    username: string,
    attackers: (() => string)[],
    ownerAt: number[],
    duration: number,
  ) {
    let elapsed = 0;
    const next = attackers.map(() => 0);
    const owner: number[] = [];
    let guesses = 0;
    for (;;) {
      const i = next.indexOf(Math.min(...next));
      const at = Math.min(next[i]!, ownerAt[0] ?? Infinity);
      if (at >= duration) break;
      t.clock.advance(at - elapsed);
      elapsed = at;
      if (ownerAt[0] === at) {
        ownerAt.shift();
        const res = await login(username, `${username}-password`, '203.0.113.7');
        owner.push(res.statusCode);
        continue;
      }
      const res = await login(username, `guess-${guesses}-wrong`, attackers[i]!());
      if (res.statusCode === 401) {
        guesses += 1;
        next[i] = at + 100;
      } else {
        expect(res.statusCode).toBe(429);
        next[i] = at + Number(res.headers['retry-after']) * 1000;
      }
    }
    t.clock.advance(duration - elapsed);
    return { guesses, owner };
  }

  it('two attacker addresses: the owner from a third gets in at once, every time', async () => {
    const ownerAt = Array.from({ length: 6 }, (_, i) => (i * 10 + 5) * 60_000);
    const { guesses, owner } = await siege(
      'olga',
      [() => '198.51.100.1', () => '198.51.100.2'],
      ownerAt,
      HOUR,
    );
    // each sign-in is the owner's first try at that moment: no wait at all
    expect(owner).toEqual([200, 200, 200, 200, 200, 200]);
    console.info(`two addresses, owner signing in every 10 min: ${guesses} guesses in an hour`);
    expect(guesses).toBeGreaterThan(0);
    expect(guesses).toBeLessThanOrEqual(GUESSES_PER_HOUR_FEW_ADDRESSES);
  });

  it('five attacker addresses (half the limit): the owner still gets in at once', async () => {
    const ownerAt = Array.from({ length: 6 }, (_, i) => (i * 10 + 5) * 60_000);
    const addresses = [1, 2, 3, 4, 5].map((i) => () => `198.51.100.${10 + i}`);
    const { guesses, owner } = await siege('olga', addresses, ownerAt, HOUR);
    expect(owner).toEqual([200, 200, 200, 200, 200, 200]);
    console.info(`five addresses, owner signing in every 10 min: ${guesses} guesses in an hour`);
    expect(guesses).toBeLessThanOrEqual(GUESSES_PER_HOUR_ANY_ADDRESSES);
  });

  it('an attacker with a new address for every guess still gets a bounded number an hour', async () => {
    let n = 0;
    const fresh = () => `2001:db8:${(++n).toString(16)}::1`; // a /64 of its own each time
    const { guesses } = await siege(
      'pia',
      [fresh, fresh, () => '198.51.100.1', () => '198.51.100.2'],
      [],
      HOUR,
    );
    console.info(`fresh addresses plus two known ones: ${guesses} guesses in an hour`);
    expect(guesses).toBeLessThanOrEqual(GUESSES_PER_HOUR_ANY_ADDRESSES);
    // the owner, from an address of their own, is then in the same lane as the fresh addresses
    // and waits at most MAX_DELAY_MS (60 s): the documented bound for this case
    const owner = await login('pia', 'pia-password', '203.0.113.9');
    const wait = owner.statusCode === 429 ? Number(owner.headers['retry-after']) : 0;
    expect(wait).toBeLessThanOrEqual(60);
  });
});
