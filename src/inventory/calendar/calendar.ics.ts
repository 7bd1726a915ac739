import ical, { ICalCalendarMethod } from 'ical-generator';

const DAY_MS = 24 * 3600 * 1000;

export interface CalendarItem {
  id: string;
  name: string;
  quantity: number;
  unit: string;
  expiryDate: string;
}

/**
 * The iCalendar text of an inventory's expiry dates: one all-day event per item on its expiry
 * date. The UID is made of the item's and the inventory's ids, so a calendar that subscribed
 * updates an item's event (renamed, moved to another date) instead of adding another. Text is
 * escaped and lines folded by ical-generator.
 */
export function expiryCalendar(input: {
  inventoryId: string;
  inventoryName: string;
  items: CalendarItem[];
  now: number;
}): string {
  const { inventoryId, inventoryName, items, now } = input;
  const name = inventoryName.trim() === '' ? 'Larder' : inventoryName;
  const calendar = ical({
    name: `${name}: expiry dates`,
    prodId: { company: 'Larder', product: 'Expiry calendar', language: 'EN' },
    method: ICalCalendarMethod.PUBLISH,
    ttl: 3600,
  });
  const stamp = new Date(now);
  for (const item of items) {
    const start = new Date(`${item.expiryDate}T00:00:00Z`);
    const amount = `${item.quantity}${item.unit ? ` ${item.unit}` : ''}`;
    calendar.createEvent({
      id: `${item.id}@${inventoryId}.larder`,
      allDay: true,
      start,
      end: new Date(start.getTime() + DAY_MS),
      stamp,
      summary: `${item.name} expires`,
      description: `${item.name}: ${amount} in ${name}`,
    });
  }
  return calendar.toString();
}
