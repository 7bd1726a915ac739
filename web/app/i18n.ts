import { browserLanguages, catalogues, translatorFor } from '#web/shared/i18n.ts';

const CHOICE_KEY = 'larder.app.language';

function chosenLanguage(): string | null {
  try {
    return localStorage.getItem(CHOICE_KEY);
  } catch {
    return null;
  }
}

const chosen = chosenLanguage();
/**
 * The household app's language: the one chosen under Account (kept in this browser's local
 * storage, which sign-out clears), else the browser's.
 */
export const { lang, locale, t } = translatorFor(
  chosen && catalogues.has(chosen) ? [chosen, ...browserLanguages] : browserLanguages,
);

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
