/** Characters of a document's text kept for language detection (franc needs far fewer). */
export const TEXT_SAMPLE_CHARS = 2000;
/** Bytes of one EPUB chapter read for that sample: its opening is enough. */
export const CHAPTER_PREFIX_BYTES = 64 * 1024;

const ENTITY_MAX = 10;
/** What may follow `<` in XML: a name, an end tag, a comment or CDATA, an instruction. */
const TAG_START = /^[A-Za-z_:/!?]$/;

/**
 * Text of HTML/XHTML with tags and character references turned into spaces, in one pass (no
 * regular expression that can backtrack over untrusted text: `<[^>]*>` is quadratic on a run of
 * `<` without `>`), stopping once `maxChars` characters of text are collected. Whitespace runs
 * collapse to one space. Starts after `<body…>` when there is one. Null when the markup is not
 * well-formed: a `<` that cannot start a tag (XHTML writes a literal one as `&lt;`).
 */
export function textOfHtml(html: string, maxChars: number): string | null {
  const body = /<body\b/i.exec(html);
  let i = body ? html.indexOf('>', body.index) + 1 || html.length : 0;
  let out = '';
  let space = true;
  const emitSpace = () => {
    if (!space) out += ' ';
    space = true;
  };
  while (i < html.length && out.length < maxChars) {
    const c = html[i]!;
    if (c === '<') {
      if (!TAG_START.test(html[i + 1] ?? '')) return null;
      const close = html.indexOf('>', i + 1);
      if (close < 0) break; // an unclosed tag runs to the end: nothing after it is text
      i = close + 1;
      emitSpace();
    } else if (c === '&' && isEntity(html, i)) {
      i = html.indexOf(';', i) + 1;
      emitSpace();
    } else if (c === ' ' || c === '\n' || c === '\t' || c === '\r' || c === '\f') {
      i++;
      emitSpace();
    } else {
      out += c;
      space = false;
      i++;
    }
  }
  return out.trim().slice(0, maxChars);
}

/** `&amp;`, `&#160;`, `&#x2014;`: a short run of letters, digits or # closed by `;`. */
function isEntity(text: string, at: number): boolean {
  for (let j = at + 1; j < text.length && j <= at + ENTITY_MAX; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x3b) return j > at + 1; // ;
    const alnum = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
    if (!alnum && c !== 0x23) return false;
  }
  return false;
}

/** `text` without `<…>` tags (an unclosed `<` drops the rest), in one pass, at most maxChars. */
export function stripTags(text: string, maxChars: number): string {
  let out = '';
  let i = 0;
  while (i < text.length && out.length < maxChars) {
    const open = text.indexOf('<', i);
    out += text.slice(i, open < 0 ? text.length : open);
    if (open < 0) break;
    const close = text.indexOf('>', open + 1);
    if (close < 0) break;
    i = close + 1;
  }
  return out.slice(0, maxChars);
}
