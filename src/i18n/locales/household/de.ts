import type { HouseholdMessages } from './en.js';

/** Die Texte der Haushalts-App (web/app/). Dieselben Schlüssel wie en.ts. */
const household: HouseholdMessages = {
  'household.title': 'Haushalt',
  'household.nav': 'Bereiche',
  'household.stock': 'Vorrat',
  'household.shopping': 'Einkaufsliste',
  'household.readiness': 'Bereitschaft',
  'household.messages': 'Nachrichten',
  'household.library': 'Bibliothek',
  'household.account': 'Konto',
  'household.signInTitle': 'Bei {app} anmelden',
  'household.loadingStock': 'Der Vorrat wird geladen…',
  'household.noInventory':
    'Ihr Konto hat noch keinen Vorrat. Bitten Sie einen Administrator, einen zuzuweisen.',
  'household.waiting_one': '{count} Änderung wartet',
  'household.waiting_other': '{count} Änderungen warten',
  'household.offline': 'offline: Änderungen bleiben auf diesem Gerät',
  'household.synced': 'Alle Änderungen gespeichert',
  'household.syncing': 'Wird gespeichert…',
  'household.syncFailed': 'Der Server war nicht erreichbar: Änderungen bleiben auf diesem Gerät.',
  'household.sessionExpired':
    'Ihre Sitzung ist abgelaufen. Bitte melden Sie sich erneut an: Ihre Änderungen auf diesem Gerät bleiben erhalten.',
  'household.useOne': 'Eins verbrauchen: {name}',
  'household.addOne': 'Eins hinzufügen: {name}',
  'household.emptyStock': 'Noch nichts im Vorrat.',
  'household.expires': 'läuft ab am {date}',
  'household.expired': 'abgelaufen am {date}',
  'household.noLocation': 'Ohne Lagerort',
  'household.noCategory': 'Ohne Kategorie',
  'household.merged': 'Eine andere Änderung war neuer: {fields} blieb wie es war.',
  'household.rejected': 'Nicht gespeichert: {reason}',
  'household.dismiss': 'Ausblenden',
  'household.signOut': 'Abmelden',
  'household.signingOut': 'Wird abgemeldet…',
  'household.signOutHint':
    'Beim Abmelden werden der Vorrat, die Nachrichten und die wartenden Änderungen auf diesem Gerät gelöscht.',
  'household.signOutLosesChanges_one':
    '{count} Änderung hat den Server noch nicht erreicht und geht verloren.',
  'household.signOutLosesChanges_other':
    '{count} Änderungen haben den Server noch nicht erreicht und gehen verloren.',
  'household.signedInAs': 'Angemeldet als {name}',
  'household.signedOut':
    'Sie haben sich abgemeldet. Nichts von Ihrem Haushalt ist mehr auf diesem Gerät.',
  'household.language': 'Sprache',
  'household.browserLanguage': 'Sprache des Browsers',
};

export default household;
