import { describe, expect, it } from 'vitest';
import { createConnectMarks } from '#src/realtime/connect-marks.js';

const anna = { id: 'anna', inventoryId: 'inv-a' };
const all = { revision: true, messages: true, digest: true };

describe('what a connect read still holds (connect marks)', () => {
  it('holds everything when no event came in since the mark', () => {
    const marks = createConnectMarks();
    marks.note({ type: 'messageCreated', messageId: 'm1', receiverId: 'anna', senderId: 'ben' });
    const mark = marks.take();
    expect(marks.unchanged(mark, anna)).toEqual(all);
  });

  it('drops just the answer an event since the mark was about, for this user only', () => {
    const marks = createConnectMarks();
    const mark = marks.take();
    marks.note({ type: 'inventoryUpdated', inventoryId: 'inv-a', revision: 2 });
    expect(marks.unchanged(mark, anna)).toEqual({ ...all, revision: false });
    marks.note({ type: 'messageCreated', messageId: 'm1', receiverId: 'anna', senderId: 'ben' });
    marks.note({ type: 'expiryDigest', inventoryId: 'inv-a', day: '2026-11-28' });
    expect(marks.unchanged(mark, anna)).toEqual({
      revision: false,
      messages: false,
      digest: false,
    });
    expect(marks.unchanged(mark, { id: 'ben', inventoryId: 'inv-b' })).toEqual(all);
    expect(marks.unchanged(marks.take(), anna)).toEqual(all);
  });

  it('holds nothing once the events since the mark were too many to remember', () => {
    const marks = createConnectMarks();
    const mark = marks.take();
    for (let i = 0; i < 5000; i++) {
      marks.note({ type: 'inventoryUpdated', inventoryId: `inv-${i}`, revision: 1 });
    }
    expect(marks.unchanged(mark, { id: 'ben', inventoryId: null })).toBeNull();
    expect(marks.unchanged(marks.take(), { id: 'ben', inventoryId: null })).toEqual(all);
  });
});
