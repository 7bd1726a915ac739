/**
 * The supply rules the summary and the readiness share: which units count as a mass or a volume,
 * how stored settings read as numbers, how figures are rounded.
 */

/** Units whose quantity converts to kilograms (litres count as kilograms: density ≈ 1). */
export const KG_PER_UNIT: Record<string, number> = {
  kg: 1,
  g: 0.001,
  mg: 0.000001,
  lb: 0.45359237,
  oz: 0.028349523125,
  l: 1,
  dl: 0.1,
  cl: 0.01,
  ml: 0.001,
};

/** Volume units (abbreviated, and spelled out in English or German) and their litres. */
export const LITERS_PER_UNIT: Record<string, number> = {
  l: 1,
  liter: 1,
  liters: 1,
  litre: 1,
  litres: 1,
  dl: 0.1,
  deciliter: 0.1,
  deciliters: 0.1,
  decilitre: 0.1,
  decilitres: 0.1,
  cl: 0.01,
  centiliter: 0.01,
  centiliters: 0.01,
  centilitre: 0.01,
  centilitres: 0.01,
  zentiliter: 0.01,
  ml: 0.001,
  milliliter: 0.001,
  milliliters: 0.001,
  millilitre: 0.001,
  millilitres: 0.001,
};

/** The key both tables are read with: case and surrounding blanks do not matter. */
export const unitKey = (unit: string) => unit.trim().toLowerCase();

/**
 * A setting read as a positive number; anything else (missing, not a number, 0 or below) is the
 * fallback. With `integer`, rounded to a whole number of at least 1.
 */
export function positiveSetting(value: string | undefined, fallback: number, integer: boolean) {
  const n = Number(value);
  if (value === undefined || value.trim() === '' || !Number.isFinite(n) || n <= 0) return fallback;
  return integer ? Math.max(1, Math.round(n)) : n;
}

export const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;
