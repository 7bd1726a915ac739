import { chooseLanguage, languageChoice, languages, t } from '#web/app/i18n.ts';

/** The app's language: the browser's, or one chosen here (the page reloads in it). */
export function LanguageChoice() {
  return (
    <section class="card">
      <h2 id="language-title">{t('household.language')}</h2>
      <label for="language">{t('household.language')}</label>
      <select
        id="language"
        value={languageChoice() ?? ''}
        onChange={(e) => chooseLanguage(e.currentTarget.value || null)}
      >
        <option value="">{t('household.browserLanguage')}</option>
        {languages.map(([tag, name]) => (
          <option key={tag} value={tag} lang={tag}>
            {name}
          </option>
        ))}
      </select>
    </section>
  );
}
