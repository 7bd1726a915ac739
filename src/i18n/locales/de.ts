import type { Messages } from './en.js';

/** Deutsch. Same keys as en.ts (checked by the type). */
const messages: Messages = {
  // Startseite
  'home.description': '{app} {version} für Android herunterladen',
  'home.version': 'Version {name} (Build {code})',
  'home.notPublished':
    'Die App wurde auf diesem Server noch nicht veröffentlicht. Bitte schauen Sie später wieder vorbei.',
  'home.notPublishedAdmin':
    'Für Administratoren: Die APK in den Datenordner des Servers kopieren (static/{file}) und die Version veröffentlichen – siehe „Die erste Stunde“ in der README.',
  'home.scan': 'Scannen Sie diesen Code mit der Kamera Ihres Handys, um die App herunterzuladen.',
  'home.qrLabel': 'QR-Code des Download-Links',
  'home.tapToDownload':
    'Tippen Sie auf die Schaltfläche, um die App herunterzuladen, und öffnen Sie dann die Datei, um sie zu installieren.',
  'home.download': 'Für Android herunterladen (APK)',
  'home.apkFacts': '{size} · veröffentlicht am {date}',
  'home.unknownSources':
    'Android fragt einmal, ob Ihr Browser oder Dateimanager Apps installieren darf („Unbekannte Apps installieren“ / „Dieser Quelle vertrauen“). Erlauben Sie es für diesen Download und installieren Sie dann.',
  'home.admin': 'Verwaltung',
  'home.notFoundTitle': 'Seite nicht gefunden',
  'home.notFoundText': 'Unter {path} gibt es nichts.',
  'home.backHome': 'Zur Startseite',
};

export default { lang: 'de', name: 'Deutsch', messages };
