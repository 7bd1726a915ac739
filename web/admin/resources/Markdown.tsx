import type { ComponentChildren, VNode } from 'preact';

/**
 * A tiny Markdown renderer that builds DOM nodes (Preact escapes every text), so a description can
 * never inject HTML or script: headings, paragraphs, lists, quotes, code, bold, italic and links
 * (http, https and mailto only). Anything else shows as the text it is.
 */
export function Markdown({ text }: { text: string }) {
  return <div class="markdown">{blocks(text)}</div>;
}

function blocks(text: string): VNode[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: VNode[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '') {
      i += 1;
    } else if (line.startsWith('```')) {
      const code: string[] = [];
      for (i += 1; i < lines.length && !lines[i]!.startsWith('```'); i += 1) code.push(lines[i]!);
      i += 1;
      out.push(
        <pre key={out.length}>
          <code>{code.join('\n')}</code>
        </pre>,
      );
    } else if (/^#{1,6}\s/.test(line)) {
      const level = Math.min(/^#+/.exec(line)![0].length + 3, 6);
      const Tag = `h${level}` as 'h4';
      out.push(<Tag key={out.length}>{inline(line.replace(/^#+\s+/, ''))}</Tag>);
      i += 1;
    } else if (/^\s*([-*+]|\d+[.)])\s+/.test(line)) {
      const ordered = /^\s*\d/.test(line);
      const items: string[] = [];
      for (; i < lines.length && /^\s*([-*+]|\d+[.)])\s+/.test(lines[i]!); i += 1) {
        items.push(lines[i]!.replace(/^\s*([-*+]|\d+[.)])\s+/, ''));
      }
      const children = items.map((item, n) => <li key={n}>{inline(item)}</li>);
      out.push(
        ordered ? <ol key={out.length}>{children}</ol> : <ul key={out.length}>{children}</ul>,
      );
    } else if (line.startsWith('>')) {
      const quote: string[] = [];
      for (; i < lines.length && lines[i]!.startsWith('>'); i += 1) {
        quote.push(lines[i]!.replace(/^>\s?/, ''));
      }
      out.push(<blockquote key={out.length}>{inline(quote.join(' '))}</blockquote>);
    } else {
      const paragraph: string[] = [];
      for (; i < lines.length && lines[i]!.trim() !== '' && !isBlockStart(lines[i]!); i += 1) {
        paragraph.push(lines[i]!);
      }
      out.push(<p key={out.length}>{inline(paragraph.join(' '))}</p>);
    }
  }
  return out;
}

function isBlockStart(line: string): boolean {
  return /^(#{1,6}\s|```|>|\s*([-*+]|\d+[.)])\s+)/.test(line);
}

const INLINE =
  /`([^`]+)`|\*\*([^*]+)\*\*|__([^_]+)__|\*([^*]+)\*|_([^_]+)_|\[([^\]]+)\]\(([^)\s]+)\)/g;

function inline(text: string): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    const [whole, code, bold1, bold2, em1, em2, label, href] = match;
    out.push(text.slice(last, match.index));
    last = match.index + whole.length;
    const key = out.length;
    if (code !== undefined) out.push(<code key={key}>{code}</code>);
    else if (bold1 ?? bold2) out.push(<strong key={key}>{inline((bold1 ?? bold2)!)}</strong>);
    else if (em1 ?? em2) out.push(<em key={key}>{inline((em1 ?? em2)!)}</em>);
    else if (label !== undefined && href !== undefined && isSafeUrl(href)) {
      out.push(
        <a key={key} href={href} target="_blank" rel="noopener noreferrer nofollow">
          {label}
        </a>,
      );
    } else out.push(whole);
  }
  out.push(text.slice(last));
  return out;
}

function isSafeUrl(href: string): boolean {
  return /^(https?:\/\/|mailto:)/i.test(href);
}
