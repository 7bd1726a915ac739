import { render } from 'preact';
import { App } from './App.tsx';
import { lang } from './i18n.ts';
import './styles.css';

document.documentElement.lang = lang;
render(<App />, document.getElementById('app')!);

// the shell for offline reloads (web/app/vite.config.ts); only in a secure context (https, localhost)
if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('/app/sw.js', { scope: '/app/' }).catch(() => {
    // no offline shell (e.g. storage refused): the app still works online
  });
}
