import path from 'node:path/posix';
import { XMLParser } from 'fast-xml-parser';
import { MAX_DESCRIPTION } from '#src/resources/resources.rules.js';
import { CHAPTER_PREFIX_BYTES, stripTags, TEXT_SAMPLE_CHARS, textOfHtml } from './text.js';
import { CorruptArchiveError, openZip, type ZipEntryInfo, type ZipReader } from './zip-reader.js';
import { calendarDate, cleanText, languageCode, splitKeywords } from './fields.js';
import { emptyMetadata, UnreadableFileError, type ExtractedMetadata } from './types.js';

/** container.xml and the OPF: metadata files, a few kB in real books. */
const MAX_XML_BYTES = 2 * 1024 * 1024;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  textNodeName: '#text',
  processEntities: true,
  htmlEntities: true,
  isArray: (name) => ['rootfile', 'item', 'itemref', 'meta'].includes(name),
});

/** EPUB 2 and 3: the OPF's Dublin Core metadata, plus a text sample from the first chapters. */
export async function extractEpub(file: string): Promise<ExtractedMetadata> {
  let zip: ZipReader;
  try {
    zip = await openZip(file);
  } catch (err) {
    throw new UnreadableFileError(`not a readable EPUB (${(err as Error).message})`);
  }
  try {
    const entries = new Map((await zip.entries()).map((e) => [e.name, e]));
    const readXml = async (name: string) => {
      const entry = entries.get(name);
      if (!entry) throw new UnreadableFileError(`not a readable EPUB (${name} is missing)`);
      return parser.parse((await zip.read(entry, MAX_XML_BYTES)).toString('utf8')) as XmlNode;
    };
    const container = await readXml('META-INF/container.xml');
    const rootfiles = container.container?.rootfiles?.rootfile as XmlNode[] | undefined;
    const opfPath = rootfiles?.[0]?.['@full-path'];
    if (typeof opfPath !== 'string') throw new UnreadableFileError('not a readable EPUB (no OPF)');
    const opf = (await readXml(opfPath)).package as XmlNode | undefined;
    const result = fromOpfMetadata(opf?.metadata ?? {});
    result.text = await sampleText(zip, entries, opf, path.dirname(opfPath));
    return result;
  } catch (err) {
    if (err instanceof CorruptArchiveError) {
      throw new UnreadableFileError(`not a readable EPUB (${err.message})`);
    }
    throw err;
  } finally {
    zip.close();
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type XmlNode = Record<string, any>;

function textOf(node: unknown): string | null {
  const value = Array.isArray(node) ? node[0] : node;
  if (value && typeof value === 'object') return cleanText((value as XmlNode)['#text']);
  return cleanText(typeof value === 'number' ? String(value) : value);
}

function allTexts(node: unknown): string[] {
  const values = Array.isArray(node) ? node : node === undefined ? [] : [node];
  return values.map(textOf).filter((v): v is string => v !== null);
}

function fromOpfMetadata(meta: XmlNode): ExtractedMetadata {
  const result = emptyMetadata();
  result.title = textOf(meta.title);
  result.author = allTexts(meta.creator).join(', ') || null;
  result.description = stripTags(textOf(meta.description) ?? '', MAX_DESCRIPTION).trim() || null;
  result.language = languageCode(textOf(meta.language));
  result.releaseDate = calendarDate(textOf(meta.date));
  result.keywords = allTexts(meta.subject).flatMap((s) => splitKeywords(s));
  const metas = (meta.meta ?? []) as XmlNode[];
  const edition = metas.find((m) =>
    ['schema:bookEdition', 'dcterms:hasVersion', 'edition'].includes(m['@property'] ?? m['@name']),
  );
  result.edition = edition
    ? (cleanText(edition['#text'] ?? edition['@content'], 200) ?? null)
    : null;
  return result;
}

async function sampleText(
  zip: ZipReader,
  entries: Map<string, ZipEntryInfo>,
  opf: XmlNode | undefined,
  base: string,
): Promise<string> {
  const items = (opf?.manifest?.item ?? []) as XmlNode[];
  const hrefs = new Map(items.map((i) => [i['@id'], i['@href']]));
  let text = '';
  for (const ref of (opf?.spine?.itemref ?? []) as XmlNode[]) {
    const href = hrefs.get(ref['@idref']);
    const entry = typeof href === 'string' ? entries.get(path.join(base, href)) : undefined;
    if (!entry || text.length >= TEXT_SAMPLE_CHARS) continue;
    const html = await zip.readPrefix(entry, CHAPTER_PREFIX_BYTES).catch(() => Buffer.alloc(0));
    const chapter = textOfHtml(html.toString(), TEXT_SAMPLE_CHARS - text.length);
    if (chapter === null) {
      throw new UnreadableFileError(
        `not a readable EPUB (${String(href).slice(0, 100)} is not well-formed XHTML)`,
      );
    }
    text += `${chapter} `;
  }
  return text.trim();
}
