import fs from 'node:fs';
import { SERVER_DIR } from '#src/paths.js';
import {
  createTranslator,
  parseAcceptLanguage,
  pickLanguage,
  type Catalogue,
} from './translate.js';

/**
 * The server's side of the catalogues: every file in ./locales/ (so adding a language is adding
 * one file), loaded once at start. Works from src/ (tsx, tests) and from dist/: the files are
 * found through SERVER_DIR, since the bundled dist/server.js is not in i18n/.
 */
export async function loadCatalogues(): Promise<Map<string, Catalogue>> {
  const dir = new URL('i18n/locales/', SERVER_DIR);
  const files = fs
    .readdirSync(dir)
    .filter((f) => /\.(ts|js)$/.test(f) && !f.endsWith('.d.ts'))
    .sort();
  const catalogues = new Map<string, Catalogue>();
  for (const file of files) {
    const module = (await import(new URL(file, dir).href)) as { default: Catalogue };
    catalogues.set(module.default.lang, module.default);
  }
  if (!catalogues.has('en')) throw new Error('the English catalogue is missing');
  return catalogues;
}

/** The translator for a request's Accept-Language header, and the language chosen. */
export function translatorFor(catalogues: Map<string, Catalogue>, acceptLanguage?: string) {
  const wanted = parseAcceptLanguage(acceptLanguage);
  const lang = pickLanguage(wanted, [...catalogues.keys()]);
  const reference = catalogues.get('en')!;
  return {
    lang,
    /** for dates and numbers: the browser's own variant of the language (en-GB), when valid */
    locale: wanted.filter((tag) => tag.split('-')[0] === lang).find(isValidLocale) ?? lang,
    t: createTranslator(catalogues.get(lang) ?? reference, reference),
  };
}

function isValidLocale(tag: string): boolean {
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}
