import { XMLParser } from 'fast-xml-parser';
import { calendarDate, cleanText, languageCode, splitKeywords } from './fields.js';

export interface XmpFields {
  title: string | null;
  description: string | null;
  author: string | null;
  keywords: string[];
  language: string | null;
  releaseDate: string | null;
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  textNodeName: '#text',
});

/** Finds the XMP packet in a piece of text (PNG iTXt, WebP "XMP " chunk, GIF extension). */
export function findXmpPacket(text: string): string | null {
  const start = text.indexOf('<x:xmpmeta');
  const end = text.indexOf('</x:xmpmeta>', start);
  return start >= 0 && end > start ? text.slice(start, end + '</x:xmpmeta>'.length) : null;
}

/** Dublin Core fields of an XMP packet; unreadable XMP yields nothing rather than an error. */
export function parseXmp(xml: string): XmpFields {
  let description: Record<string, unknown> = {};
  try {
    const doc = parser.parse(xml) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const rdf = doc.xmpmeta?.RDF?.Description;
    const all = (Array.isArray(rdf) ? rdf : [rdf]).filter((d) => d && typeof d === 'object');
    description = Object.assign({}, ...all);
  } catch {
    // fall through with no fields
  }
  const values = (key: string) => rdfValues(description[key]);
  return {
    title: cleanText(values('title')[0], 500),
    description: cleanText(values('description')[0]),
    author: values('creator').join(', ') || null,
    keywords: values('subject').flatMap((s) => splitKeywords(s)),
    language: languageCode(values('language')[0]),
    releaseDate: calendarDate(values('date')[0] ?? values('CreateDate')[0]),
  };
}

/** rdf:Alt / rdf:Seq / rdf:Bag / plain text / attribute form → a list of strings. */
export function rdfValues(node: unknown): string[] {
  if (node === undefined || node === null) return [];
  if (typeof node === 'string' || typeof node === 'number') return [String(node)];
  if (Array.isArray(node)) return node.flatMap(rdfValues);
  if (typeof node === 'object') {
    const obj = node as Record<string, unknown>;
    for (const container of ['Alt', 'Seq', 'Bag']) {
      if (obj[container]) return rdfValues((obj[container] as Record<string, unknown>).li);
    }
    if ('#text' in obj) return rdfValues(obj['#text']);
    if ('value' in obj) return rdfValues(obj.value); // exifr's {lang, value}
  }
  return [];
}
