/**
 * Translation without dependencies, shared by the server (home page) and the admin SPA.
 * A catalogue is one file per language in ./locales/ (English is the reference: every other
 * catalogue has the same keys, checked by the type `Messages`). Placeholders are `{name}`;
 * a key with `_one`/`_other` variants is chosen by `{count}` with the language's plural rules.
 */
export interface Catalogue {
  /** BCP 47 primary tag, e.g. `en`, `de` */
  lang: string;
  /** the language's own name, e.g. Deutsch */
  name: string;
  messages: Readonly<Record<string, string>>;
}

export type Vars = Record<string, string | number>;
export type Translate = (key: string, vars?: Vars) => string;

/** The language tags of an Accept-Language header, most wanted first (q=0 dropped). */
export function parseAcceptLanguage(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return { tag: tag.trim().toLowerCase(), q: q === undefined ? 1 : Number(q), index };
    })
    .filter((e) => e.tag && e.tag !== '*' && e.q > 0 && Number.isFinite(e.q))
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map((e) => e.tag);
}

/** The first wanted language with a catalogue (`de-AT` finds `de`), else `fallback`. */
export function pickLanguage(
  wanted: readonly string[],
  available: readonly string[],
  fallback = 'en',
) {
  for (const tag of wanted) {
    const primary = tag.toLowerCase().split('-')[0]!;
    if (available.includes(primary)) return primary;
  }
  return fallback;
}

/** Replaces `{name}` with vars.name; unknown placeholders stay as they are. */
function format(template: string, vars: Vars = {}): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in vars ? String(vars[name]) : whole,
  );
}

/** t(key, vars) for one catalogue, falling back to `reference` (English), then to the key. */
export function createTranslator(catalogue: Catalogue, reference: Catalogue): Translate {
  const plural = new Intl.PluralRules(catalogue.lang);
  const lookup = (key: string) => catalogue.messages[key] ?? reference.messages[key];
  return (key, vars) => {
    let template: string | undefined;
    if (vars && typeof vars.count === 'number') {
      template = lookup(`${key}_${plural.select(vars.count)}`) ?? lookup(`${key}_other`);
    }
    template ??= lookup(key) ?? key;
    return format(template, vars);
  };
}
