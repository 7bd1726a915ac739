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

// When upgrades are refused, and the moments handed out (src/realtime/upgrade-queue.ts), on a
// made-up clock; the 503 itself is tested through a WebSocket in upgrade-queue.test.ts.
describe('the upgrade queue refuses newcomers to a slow, long queue, spread at its pace', () => {
  it('lets a burst in; once the queue is slow and long, refuses newcomers with moments 1/rate apart', () => {
    let t = 0;
    const queue = createUpgradeQueue({ maxWaitMs: 5000, now: () => t, random: () => 0.5 });
    // one upgrade a second for a while: the rate seen is low
    for (let i = 0; i < 5; i++, t += 1000) queue.enter(socket())();
    // a burst of 1,000: nobody has waited yet, so none is refused (the rate alone says nothing)
    const leaves = Array.from({ length: 1000 }, () => queue.enter(socket()));
    expect(queue.size()).toBe(1000);
    // they finish at 50 a second; after 6 s the oldest in progress has waited past 5 s
    for (let s = 0; s < 6; s++) {
      t += 1000;
      for (const leave of leaves.splice(0, 50)) leave();
    }
    // 700 in progress at 50 a second: a newcomer would wait 14 s; it is told to come back then,
    // each next one 20 ms later
    expect(refusal(queue)).toBe(14);
    const later = Array.from({ length: 300 }, () => refusal(queue)!);
    expect(later.at(-1)).toBe(20); // 14 s + 300 × 20 ms
    expect([...later].sort((a, b) => a - b)).toEqual(later);
  });

  it('lets newcomers in while the queue ahead is short, however long its oldest has waited', () => {
    let t = 0;
    const queue = createUpgradeQueue({ maxWaitMs: 5000, now: () => t, random: () => 0.5 });
    queue.enter(socket()); // one stuck
    const leaves = Array.from({ length: 200 }, () => queue.enter(socket()));
    for (let s = 0; s < 6; s++) {
      t += 1000;
      for (const leave of leaves.splice(0, 30)) leave();
    }
    // 41 in progress at 30 a second: under 2 s ahead
    expect(refusal(queue)).toBeNull();
  });

  it('with nothing finishing, draws from 1 s to twice the oldest wait, never more than 30 s', () => {
    let t = 0;
    const queue = createUpgradeQueue({ maxWaitMs: 5000, now: () => t, random: () => 0.99 });
    queue.enter(socket()); // stuck: nothing finishes
    t += 6000;
    expect(refusal(queue)).toBe(12); // 1 + floor(0.99 × 12)
    t += 60_000;
    expect(refusal(queue)).toBe(30);
  });
});
