import { createTranslator, pickLanguage, type Catalogue, type Vars } from '#src/i18n/translate.ts';
import type { Messages } from '#src/i18n/locales/en.ts';

type Key = keyof Messages;
/** a key with plural variants is called by its base name: t('items', { count }) */
type PluralBase = Key extends infer K ? (K extends `${infer B}_other` ? B : never) : never;

/**
 * The admin interface's language: the browser's (navigator.languages), from the catalogues in
 * src/i18n/locales/ — every file there is bundled, so adding a language is adding one file.
 */
const modules = import.meta.glob<{ default: Catalogue }>('#src/i18n/locales/*.ts', {
  eager: true,
});
const catalogues = new Map(Object.values(modules).map((m) => [m.default.lang, m.default]));
const reference = catalogues.get('en')!;
const wanted = navigator.languages?.length ? navigator.languages : [navigator.language];

export const lang = pickLanguage(wanted, [...catalogues.keys()]);
/** for dates and numbers: the browser's own variant of the chosen language (e.g. de-AT) */
export const locale = wanted.find((tag) => tag.toLowerCase().split('-')[0] === lang) ?? lang;

const translate = createTranslator(catalogues.get(lang) ?? reference, reference);

/** The text of `key` in the interface's language, with `{name}` placeholders filled in. */
export function t(key: Key | PluralBase, vars?: Vars): string {
  return translate(key, vars);
}
