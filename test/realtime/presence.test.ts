import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BusEvent, EventBus } from '#src/events/bus.js';
import { createPresence, PRESENCE_COALESCE_MS } from '#src/realtime/presence.js';

/** The presence of one instance, publishing into a list (the bus is not under test here). */
function presenceOnto(published: BusEvent[]) {
  const bus = {
    publish: async (event: BusEvent) => void published.push(event),
  } as unknown as EventBus;
  return createPresence({ bus, instanceId: 'here', localUserIds: () => [] });
}

describe('presence announcements', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('changes within PRESENCE_COALESCE_MS go in one event, each user with their latest change', async () => {
    const published: BusEvent[] = [];
    const presence = presenceOnto(published);
    presence.announce('ann', true);
    presence.announce('ben', true);
    presence.announce('cleo', true);
    presence.announce('ben', false); // opened and closed within the window
    expect(published).toEqual([]);
    await vi.advanceTimersByTimeAsync(PRESENCE_COALESCE_MS);
    expect(published).toEqual([
      { type: 'presence', instanceId: 'here', online: ['ann', 'cleo'], offline: ['ben'] },
    ]);
    presence.announce('ann', false);
    await vi.advanceTimersByTimeAsync(PRESENCE_COALESCE_MS);
    expect(published.at(-1)).toEqual({
      type: 'presence',
      instanceId: 'here',
      online: [],
      offline: ['ann'],
    });
  });

  it('a burst of 1,000 connects is a few events within the bus payload limit', async () => {
    const published: BusEvent[] = [];
    const presence = presenceOnto(published);
    const ids = Array.from({ length: 1000 }, () => crypto.randomUUID());
    for (const id of ids) presence.announce(id, true);
    await vi.advanceTimersByTimeAsync(PRESENCE_COALESCE_MS);
    expect(published.length).toBeLessThanOrEqual(10);
    const online = published.flatMap((e) => (e.type === 'presence' ? e.online : []));
    expect(online).toEqual(ids);
    for (const event of published) expect(JSON.stringify(event).length).toBeLessThan(7900);
  });

  it('what is still waiting at close is not announced: the closing snapshot empties this instance', async () => {
    const published: BusEvent[] = [];
    const presence = presenceOnto(published);
    presence.announce('ann', true);
    presence.close();
    await vi.advanceTimersByTimeAsync(PRESENCE_COALESCE_MS);
    expect(published).toEqual([
      { type: 'presenceSnapshot', instanceId: 'here', userIds: [], part: 0 },
    ]);
  });
});
