// The normalizers every extractor passes a file's raw metadata fields through.

/** Trimmed text with collapsed whitespace and no control characters; null when empty. */
export function cleanText(value: unknown, max = 4096): string | null {
  if (typeof value !== 'string') return null;
  // eslint-disable-next-line no-control-regex
  const text = value.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '').trim();
  if (!text) return null;
  return text.length > max ? text.slice(0, max) : text;
}

/** Splits a keyword field ("a, b; c" or an array) into separate keywords. */
export function splitKeywords(value: unknown): string[] {
  const items = Array.isArray(value) ? value : [value];
  return items
    .flatMap((v) => (typeof v === 'string' || typeof v === 'number' ? String(v).split(/[,;]/) : []))
    .map((k) => k.trim())
    .filter((k) => k.length > 0);
}

/** "en-GB", "de_DE", "EN" → "en"; anything else → null. */
export function languageCode(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const match = /^([a-z]{2,3})(?:[-_].*)?$/i.exec(value.trim());
  return match ? match[1]!.toLowerCase() : null;
}

/**
 * A calendar date from the many forms files use: "2021-03-02", "2021", "2022:07:01 10:20:30",
 * PDF's "D:20230415093000Z", ISO timestamps. Returns YYYY-MM-DD (first of month/year when only
 * those are known) or null.
 */
export function calendarDate(value: unknown): string | null {
  if (value instanceof Date)
    return isNaN(value.getTime()) ? null : value.toISOString().slice(0, 10);
  if (typeof value !== 'string') return null;
  const match = /^(?:D:)?(\d{4})(?:[-:]?(\d{2}))?(?:[-:]?(\d{2}))?/.exec(value.trim());
  if (!match) return null;
  const [year, month = '01', day = '01'] = [match[1]!, match[2], match[3]];
  const date = new Date(`${year}-${month}-${day}T00:00:00Z`);
  if (isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== `${year}-${month}-${day}`) {
    return null;
  }
  return `${year}-${month}-${day}`;
}
