import { createTranslator, pickLanguage, type Catalogue, type Vars } from '#src/i18n/translate.ts';
import type { Messages } from '#src/i18n/locales/en.ts';

type Key = keyof Messages;
/** a key with plural variants is called by its base name: t('household.waiting', { count }) */
type PluralBase = Key extends infer K ? (K extends `${infer B}_other` ? B : never) : never;

/**
 * The household app's language: the one chosen under Account (kept in this browser's local
 * storage, which sign-out clears), else the browser's, from the catalogues the admin interface
 * and the home page use (src/i18n/locales/).
 */
const modules = import.meta.glob<{ default: Catalogue }>('#src/i18n/locales/*.ts', {
  eager: true,
});
const catalogues = new Map(Object.values(modules).map((m) => [m.default.lang, m.default]));
const reference = catalogues.get('en')!;
const CHOICE_KEY = 'larder.app.language';

function chosenLanguage(): string | null {
  try {
    return localStorage.getItem(CHOICE_KEY);
  } catch {
    return null;
  }
}

const browser = navigator.languages?.length ? navigator.languages : [navigator.language];
const chosen = chosenLanguage();
const wanted = chosen && catalogues.has(chosen) ? [chosen, ...browser] : browser;

export const lang = pickLanguage(wanted, [...catalogues.keys()]);
/** for dates and numbers: the browser's own variant of the chosen language (e.g. de-AT) */
export const locale = browser.find((tag) => tag.toLowerCase().split('-')[0] === lang) ?? lang;

/** The languages to choose from under Account: [tag, own name]. */
export const languages = [...catalogues.values()].map((c) => [c.lang, c.name] as const);
export const languageChoice = (): string | null => chosen;

/** Keeps the choice (null: follow the browser) and reloads the app in that language. */
export function chooseLanguage(tag: string | null): void {
  try {
    if (tag) localStorage.setItem(CHOICE_KEY, tag);
    else localStorage.removeItem(CHOICE_KEY);
  } catch {
    // storage refused (private mode): the choice lasts for this page only
  }
  location.reload();
}

const translate = createTranslator(catalogues.get(lang) ?? reference, reference);

/** The text of `key` in the app's language, with `{name}` placeholders filled in. */
export function t(key: Key | PluralBase, vars?: Vars): string {
  return translate(key, vars);
}
