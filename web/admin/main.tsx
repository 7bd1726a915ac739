import { render } from 'preact';
import { App } from './App.tsx';
import { lang, t } from './i18n.ts';
import './styles.css';

document.documentElement.lang = lang;
document.title = t('app.title');
render(<App />, document.getElementById('app')!);
