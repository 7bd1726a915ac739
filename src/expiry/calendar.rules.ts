const DAY_MS = 24 * 3600 * 1000;

/**
 * One formatter per time zone, made once: building an Intl.DateTimeFormat costs ~100 µs (it
 * loads the zone's rules), and a socket's connect asks for the local day (a profile of 10,000
 * connects: 18 % of the server's CPU was here; docs/performance.md, "Socket connect").
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, formatter); // LARDER_TZ: one zone per process
  }
  return formatter;
}

/** The last answer, by the second it was for: a burst of connects asks the same second. */
let last = { second: NaN, timeZone: '', day: '', hour: 0 };

/**
 * The calendar day (YYYY-MM-DD) and hour (0-23) at `now` in `timeZone`. Formatting took 3 % of
 * the server's CPU during 10,000 socket connects; zone offsets are whole seconds, so within one
 * second the answer is the same and is formatted once.
 */
export function localTime(now: number, timeZone: string): { day: string; hour: number } {
  const second = Math.floor(now / 1000);
  if (second !== last.second || timeZone !== last.timeZone) {
    const parts = formatterFor(timeZone).formatToParts(new Date(now));
    const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '00';
    const day = `${part('year')}-${part('month')}-${part('day')}`;
    last = { second, timeZone, day, hour: Number(part('hour')) };
  }
  return { day: last.day, hour: last.hour };
}

/** Whole days from `from` to `to` (both YYYY-MM-DD): 1 for tomorrow, -2 for the day before yesterday. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

export function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}
