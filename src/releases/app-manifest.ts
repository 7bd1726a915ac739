/** The colours of the household app's icons and title bar (web/app/pwa/icons.ts draws them). */
const APP_THEME_COLOR = '#2f6f4e';
const APP_BACKGROUND_COLOR = '#ffffff';

/**
 * The web app manifest of the household app at /app/: what a browser needs to offer "Install" or
 * "Add to Home Screen" (name, icons of 192 and 512 px, standalone display, start URL and scope).
 * Served by the server rather than built, so the name follows LARDER_APP_NAME without a rebuild.
 */
export function appManifest(appName: string) {
  const shortName = appName.length <= 12 ? appName : appName.slice(0, 12).trimEnd();
  return {
    id: '/app/',
    name: appName,
    short_name: shortName,
    description: `${appName}: the household's stock, shopping list, messages and library`,
    start_url: '/app/',
    scope: '/app/',
    display: 'standalone',
    orientation: 'any',
    theme_color: APP_THEME_COLOR,
    background_color: APP_BACKGROUND_COLOR,
    icons: [
      { src: '/app/icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
      { src: '/app/icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
      {
        src: '/app/icons/maskable-512.png',
        sizes: '512x512',
        type: 'image/png',
        purpose: 'maskable',
      },
    ],
  };
}
