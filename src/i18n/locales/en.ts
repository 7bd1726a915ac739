/**
 * English, the reference catalogue: every other file in this folder has the same keys (the type
 * `Messages` checks it). Placeholders are `{name}`; `_one`/`_other` keys are chosen by `{count}`.
 */
const messages = {
  // home page
  'home.description': 'Download {app} {version} for Android',
  'home.version': 'Version {name} (build {code})',
  'home.notPublished':
    'The app has not been published on this server yet. Please check again later.',
  'home.notPublishedAdmin':
    'Administrators: copy the APK into the server’s data folder (static/{file}) and publish the version — see “First hour” in the README.',
  'home.scan': 'Scan this code with your phone’s camera to download the app.',
  'home.qrLabel': 'QR code of the download link',
  'home.tapToDownload':
    'Tap the button to download the app, then open the downloaded file to install it.',
  'home.download': 'Download for Android (APK)',
  'home.apkFacts': '{size} · published {date}',
  'home.unknownSources':
    'Android asks once whether your browser or file manager may install apps (“Install unknown apps” / “Allow from this source”). Allow it for this download, then install.',
  'home.admin': 'Administration',
  'home.notFoundTitle': 'Page not found',
  'home.notFoundText': 'There is nothing at {path}.',
  'home.backHome': 'Back to the home page',
};

export type Messages = { readonly [K in keyof typeof messages]: string };

export default { lang: 'en', name: 'English', messages: messages satisfies Messages };
