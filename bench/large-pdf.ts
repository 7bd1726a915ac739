import fs from 'node:fs';

const MB = 1024 * 1024;

/** A valid 25 MB PDF: 40 pages of text and one 24.5 MB image, with document info. */
export function makePdf(file: string, size = 25 * MB): void {
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let length = 0;
  const push = (data: Buffer | string) => {
    const b = Buffer.from(data as string, typeof data === 'string' ? 'latin1' : undefined);
    parts.push(b);
    length += b.length;
  };
  const object = (n: number, body: Buffer | string, stream?: Buffer) => {
    offsets[n] = length;
    push(`${n} 0 obj\n`);
    push(body);
    if (stream) {
      push('\nstream\n');
      push(stream);
      push('\nendstream');
    }
    push('\nendobj\n');
  };
  const pages = 40;
  push('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n');
  const kids = Array.from({ length: pages }, (_, i) => `${5 + i * 2} 0 R`).join(' ');
  object(1, '<< /Type /Catalog /Pages 2 0 R /Lang (en) >>');
  object(2, `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`);
  object(3, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const imageBytes = size - 40 * 1024;
  const image = Buffer.alloc(imageBytes);
  for (let i = 0; i < imageBytes; i += 4) image.writeUInt32LE((Math.random() * 2 ** 32) >>> 0, i);
  const side = Math.floor(Math.sqrt(imageBytes / 3));
  object(
    4,
    `<< /Type /XObject /Subtype /Image /Width ${side} /Height ${side} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Length ${imageBytes} >>`,
    image,
  );
  for (let i = 0; i < pages; i++) {
    const text =
      `BT /F1 12 Tf 72 720 Td (Page ${i + 1}: store water, food and candles for every person in the household.) Tj ET` +
      (i === 0 ? ' q 400 0 0 400 72 200 cm /Im1 Do Q' : '');
    object(
      5 + i * 2,
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> /XObject << /Im1 4 0 R >> >> /Contents ${6 + i * 2} 0 R >>`,
    );
    object(6 + i * 2, `<< /Length ${text.length} >>`, Buffer.from(text, 'latin1'));
  }
  const info = 5 + pages * 2;
  object(
    info,
    '<< /Title (Household Emergency Handbook) /Author (Bench) /CreationDate (D:20240101000000Z) >>',
  );
  const xref = length;
  push(`xref\n0 ${info + 1}\n0000000000 65535 f \n`);
  for (let n = 1; n <= info; n++) push(`${String(offsets[n]).padStart(10, '0')} 00000 n \n`);
  push(
    `trailer\n<< /Size ${info + 1} /Root 1 0 R /Info ${info} 0 R >>\nstartxref\n${xref}\n%%EOF\n`,
  );
  fs.writeFileSync(file, Buffer.concat(parts));
}
