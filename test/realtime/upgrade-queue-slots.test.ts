import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { AppError } from '#src/http/errors.js';
import { createUpgradeQueue } from '#src/realtime/upgrade-queue.js';

const socket = () => new EventEmitter() as unknown as Socket;

/** The Retry-After (s) an upgrade arriving now is refused with, or null when it is let in. */
function refusal(queue: ReturnType<typeof createUpgradeQueue>): number | null {
  try {
    queue.enter(socket());
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(503);
    return Number((err as AppError).headers['retry-after']);
  }
}

// The moments handed out to refused upgrades (src/realtime/upgrade-queue.ts), on a made-up clock;
// the 503 itself is tested through a WebSocket in upgrade-queue.test.ts.
describe('the upgrade queue spreads refused upgrades at the pace it serves them', () => {
  it('lets a burst in on a quiet instance, then refuses once upgrades have waited too long', () => {
    let t = 0;
    const queue = createUpgradeQueue({ maxWaitMs: 5000, now: () => t, random: () => 0.5 });
    // one upgrade a second for a while: the rate seen is low
    for (let i = 0; i < 5; i++, t += 1000) queue.enter(socket())();
    // a burst of 1,000: nobody has waited yet, so none is refused (the rate alone says nothing)
    const leaves = Array.from({ length: 1000 }, () => queue.enter(socket()));
    expect(queue.size()).toBe(1000);
    // they finish at 100 a second; after 6 s the oldest in progress has waited past 5 s
    for (let s = 0; s < 6; s++) {
      t += 1000;
      for (const leave of leaves.splice(0, 100)) leave();
    }
    t += 10;
    const first = refusal(queue);
    // 400 still in progress at 100 a second: the first comes back after them, 4 s from now (or
    // the 6 s it waited, whichever is later), each next one 10 ms later
    expect(first).toBe(6);
    const later = Array.from({ length: 300 }, () => refusal(queue)!);
    expect(later.at(-1)).toBe(9); // 6 s + 300 × 10 ms
    expect([...later].sort((a, b) => a - b)).toEqual(later);
  });

  it('with no rate known yet, draws from 1 s to twice the wait, never more than 30 s', () => {
    let t = 0;
    const queue = createUpgradeQueue({ maxWaitMs: 5000, now: () => t, random: () => 0.99 });
    queue.enter(socket()); // stuck: nothing finishes
    t += 6000;
    expect(refusal(queue)).toBe(12); // 1 + floor(0.99 × 12)
    t += 60_000;
    expect(refusal(queue)).toBe(30);
  });
});
