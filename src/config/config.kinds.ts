import Type, { type TString } from 'typebox';

/**
 * The kinds of LARDER_* variable. Each builds the TypeBox schema of the text the environment holds
 * (constraints as `pattern` or a Refine check) with a Decode into the value the server uses, and
 * carries what config.read.ts and the README table need beside it (see Annotations).
 */

/** What every variable says of itself: the README table's default and meaning columns. */
export interface Documented {
  /** the README's "meaning" column (Markdown) */
  description: string;
  /** the value of an unset or blank variable, written as one would set it */
  default?: string;
  /** the README's default column of a variable without a default, e.g. "unset: off" */
  unset?: string;
}

/** JSON Schema ignores keywords it does not know: these ride along on every variable's schema. */
export interface Annotations extends Documented {
  /** why a value is refused: the ConfigError's text after the variable's name */
  error: string;
  /** never repeated in an error (a password, a URL that may hold one) */
  secret?: boolean;
  /** read as set, spaces included (a password may begin with one); others are trimmed */
  verbatim?: boolean;
}

type Check = (value: string) => boolean;
type TextOptions = Documented & { pattern?: RegExp; check?: Check; error?: string };

/** The Documented fields that are set (a schema is JSON: no undefined values in it). */
const annotations = ({ description, default: value, unset }: Documented) => ({
  description,
  ...(value !== undefined && { default: value }),
  ...(unset !== undefined && { unset }),
});

/** Text, refused unless it matches `pattern` and passes `check`. */
export function text(options: TextOptions & Pick<Annotations, 'secret' | 'verbatim'>): TString {
  const schema = Type.String({
    ...annotations(options),
    ...(options.pattern && { pattern: options.pattern.source }),
    error: options.error ?? 'must be set',
    ...(options.secret && { secret: true }),
    ...(options.verbatim && { verbatim: true }),
  });
  return options.check ? Type.Refine(schema, options.check) : schema;
}

/** A password or token: read without trimming, never repeated in an error. */
export function secret(options: Omit<TextOptions, 'pattern'>): TString {
  return text({ ...options, secret: true, verbatim: true });
}

/** A whole number from `min` to `max`, written in decimal digits. */
export function whole(options: Documented & { default: string; min: number; max: number }) {
  const { min, max } = options;
  const digits = Type.String({
    ...annotations(options),
    pattern: '^-?\\d+$',
    error: `must be a whole number from ${min} to ${max}`,
  });
  const inRange = (value: string) => Number(value) >= min && Number(value) <= max;
  return Type.Decode(Type.Refine(digits, inRange), (value) => Number(value));
}

/** "900", "900s", "15m", "12h", "30d" → seconds; null when unreadable. */
export function parseDuration(raw: string): number | null {
  const match = /^(\d+)\s*([smhd]?)$/i.exec(raw.trim());
  if (!match) return null;
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[match[2]!.toLowerCase()]!;
  const seconds = Number(match[1]) * unit;
  return Number.isSafeInteger(seconds) ? seconds : null;
}

/** A duration in seconds (parseDuration); 0 only where it means "off" or "none". */
export function duration(options: Documented & { default: string; zero?: 'allowed' }) {
  const readable = Type.String({
    ...annotations(options),
    error: 'must be a duration such as 900, 15m, 12h or 30d',
  });
  const allowed = (value: string) => {
    const seconds = parseDuration(value);
    return seconds !== null && (seconds > 0 || options.zero === 'allowed');
  };
  return Type.Decode(Type.Refine(readable, allowed), (value) => parseDuration(value)!);
}

const YES = /^(1|true|yes|on)$/i;
const NO = /^(0|false|no|off)$/i;

/** On or off, `false` unless set: 1/true/yes/on or 0/false/no/off, in any case. */
export function flag(options: Omit<Documented, 'default'>) {
  const words = Type.String({
    ...annotations({ ...options, default: 'false' }),
    error: 'must be true or false',
  });
  const readable = (value: string) => YES.test(value) || NO.test(value);
  return Type.Decode(Type.Refine(words, readable), (value) => YES.test(value));
}

/** One of `values`, e.g. "must be auto, json or pretty"; `ignoreCase` reads "OFF" as "off". */
export function oneOf<const V extends string>(
  values: readonly V[],
  options: Documented & { default: V; ignoreCase?: boolean },
) {
  const spoken = `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;
  const normal = (value: string) => (options.ignoreCase ? value.toLowerCase() : value);
  const known = (value: string): value is V => (values as readonly string[]).includes(value);
  const word = Type.String({ ...annotations(options), error: `must be ${spoken}` });
  return Type.Decode(
    Type.Refine(word, (value) => known(normal(value))),
    (value) => normal(value) as V,
  );
}

/** Comma-separated entries (blank ones dropped), each of which must pass `check`. */
export function list(options: Omit<Documented, 'default'> & { check: Check; error: string }) {
  const entries = (value: string) =>
    value
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
  const commaSeparated = Type.String({ ...annotations(options), error: options.error });
  return Type.Decode(
    Type.Refine(commaSeparated, (value) => entries(value).every(options.check)),
    entries,
  );
}
