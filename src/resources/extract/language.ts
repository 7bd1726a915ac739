import { franc } from 'franc-min';

/**
 * ISO 639-3 (what franc returns) → ISO 639-1 (what the catalog stores), for the languages a
 * household library is likely to hold. Limiting franc to these avoids rare look-alikes such as
 * Scots ("sco") for short English text.
 */
const ISO_639_1: Record<string, string> = {
  eng: 'en',
  deu: 'de',
  fra: 'fr',
  spa: 'es',
  ita: 'it',
  por: 'pt',
  nld: 'nl',
  pol: 'pl',
  ces: 'cs',
  slk: 'sk',
  hun: 'hu',
  ron: 'ro',
  swe: 'sv',
  dan: 'da',
  nob: 'no',
  fin: 'fi',
  ell: 'el',
  tur: 'tr',
  rus: 'ru',
  ukr: 'uk',
  bul: 'bg',
  hrv: 'hr',
  srp: 'sr',
  arb: 'ar',
  pes: 'fa',
  heb: 'he',
  hin: 'hi',
  cmn: 'zh',
  jpn: 'ja',
  kor: 'ko',
  vie: 'vi',
  ind: 'id',
};
const CANDIDATES = Object.keys(ISO_639_1);

/** The most likely language of a text as an ISO 639-1 code, or null when too short to tell. */
export function detectLanguage(text: string): string | null {
  const sample = text.replace(/\s+/g, ' ').trim().slice(0, 4000);
  if (sample.length < 20) return null;
  const code = franc(sample, { only: CANDIDATES, minLength: 20 });
  return ISO_639_1[code] ?? null;
}
