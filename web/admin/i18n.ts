import { browserLanguages, translatorFor } from '#web/shared/i18n.ts';

/** The admin interface's language: the browser's (navigator.languages). */
export const { lang, locale, t } = translatorFor(browserLanguages);
