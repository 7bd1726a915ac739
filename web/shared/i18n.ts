import { createTranslator, pickLanguage, type Catalogue, type Vars } from '#src/i18n/translate.ts';
import type { Messages } from '#src/i18n/locales/en.ts';

type Key = keyof Messages;
/** a key with plural variants is called by its base name: t('items', { count }) */
type PluralBase = Key extends infer K ? (K extends `${infer B}_other` ? B : never) : never;

/**
 * Every catalogue in src/i18n/locales/ (the admin interface, the household app and the home page
 * share them): every file there is bundled, so adding a language is adding one file.
 */
const modules = import.meta.glob<{ default: Catalogue }>('#src/i18n/locales/*.ts', {
  eager: true,
});
export const catalogues = new Map(Object.values(modules).map((m) => [m.default.lang, m.default]));
const reference = catalogues.get('en')!;

/** The browser's languages, most wanted first. */
export const browserLanguages: readonly string[] = navigator.languages?.length
  ? navigator.languages
  : [navigator.language];

/**
 * The language of a page: the first of `wanted` that has a catalogue (else English), its locale
 * for dates and numbers (the browser's own variant of it, e.g. de-AT), and `t`: the text of a key
 * in that language with `{name}` placeholders filled in.
 */
export function translatorFor(wanted: readonly string[]) {
  const lang = pickLanguage(wanted, [...catalogues.keys()]);
  const locale = browserLanguages.find((tag) => tag.toLowerCase().split('-')[0] === lang) ?? lang;
  const translate = createTranslator(catalogues.get(lang) ?? reference, reference);
  const t = (key: Key | PluralBase, vars?: Vars): string => translate(key, vars);
  return { lang, locale, t };
}

/** The `t` of a page's language (each interface picks its own). */
export type Translate = ReturnType<typeof translatorFor>['t'];
