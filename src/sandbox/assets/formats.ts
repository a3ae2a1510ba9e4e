// The formats the asset host can make, with their Content-Type. Images are drawn by sharp (PSD by
// hand: sharp does not write it); files are small but valid documents of their format.
import { crc32 } from 'node:zlib';
import ExcelJS from 'exceljs';
import sharp from 'sharp';

export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'webp' | 'tiff' | 'psd';
export type FileFormat = 'pdf' | 'csv' | 'txt' | 'json' | 'xml' | 'zip' | 'docx' | 'xlsx';

interface Format {
  contentType: string;
  image?: ImageFormat;
  file?: FileFormat;
}

export const FORMATS: Record<string, Format> = {
  png: { contentType: 'image/png', image: 'png' },
  jpg: { contentType: 'image/jpeg', image: 'jpeg' },
  jpeg: { contentType: 'image/jpeg', image: 'jpeg' },
  gif: { contentType: 'image/gif', image: 'gif' },
  webp: { contentType: 'image/webp', image: 'webp' },
  tif: { contentType: 'image/tiff', image: 'tiff' },
  tiff: { contentType: 'image/tiff', image: 'tiff' },
  psd: { contentType: 'image/vnd.adobe.photoshop', image: 'psd' },
  pdf: { contentType: 'application/pdf', file: 'pdf' },
  csv: { contentType: 'text/csv', file: 'csv' },
  txt: { contentType: 'text/plain', file: 'txt' },
  json: { contentType: 'application/json', file: 'json' },
  xml: { contentType: 'application/xml', file: 'xml' },
  zip: { contentType: 'application/zip', file: 'zip' },
  docx: {
    contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    file: 'docx',
  },
  xlsx: { contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', file: 'xlsx' },
};

export async function makeImage(format: ImageFormat, width: number, height: number): Promise<Buffer> {
  if (format === 'psd') return makePsd(width, height);
  const canvas = sharp({ create: { width, height, channels: 3, background: { r: 64, g: 128, b: 192 } } });
  return canvas.toFormat(format).toBuffer();
}

/** A valid flat RGB Photoshop file: header, empty sections, RLE image data of one colour. */
function makePsd(width: number, height: number): Buffer {
  const channels = 3;
  const packetsPerRow = Math.ceil(width / 128);
  const row = Buffer.alloc(packetsPerRow * 2);
  for (let p = 0, left = width; p < packetsPerRow; p++, left -= 128) {
    const run = Math.min(128, left);
    row.writeInt8(1 - run, p * 2); // PackBits: -(n-1) repeats the next byte n times
    row.writeUInt8(160, p * 2 + 1);
  }
  const rows = height * channels;
  const header = Buffer.alloc(26 + 4 + 4 + 4 + 2);
  header.write('8BPS', 0, 'latin1');
  header.writeUInt16BE(1, 4); // version
  header.writeUInt16BE(channels, 12);
  header.writeUInt32BE(height, 14);
  header.writeUInt32BE(width, 18);
  header.writeUInt16BE(8, 22); // bits per channel
  header.writeUInt16BE(3, 24); // RGB
  // colour mode data, image resources, layer and mask info: all empty (lengths 0)
  header.writeUInt16BE(1, 38); // compression: RLE
  const counts = Buffer.alloc(rows * 2);
  for (let i = 0; i < rows; i++) counts.writeUInt16BE(row.length, i * 2);
  return Buffer.concat([header, counts, ...Array.from({ length: rows }, () => row)]);
}

export async function makeFile(format: FileFormat, name: string): Promise<Buffer> {
  switch (format) {
    case 'pdf':
      return makePdf(`Sandbox document ${name}`);
    case 'csv':
      return Buffer.from(`reference,name\n${csvCell(name)},Sandbox file\n`, 'utf8');
    case 'txt':
      return Buffer.from(`Sandbox text file ${name}\n`, 'utf8');
    case 'json':
      return Buffer.from(`${JSON.stringify({ name, source: 'sandbox asset host' })}\n`, 'utf8');
    case 'xml':
      return Buffer.from(
        `<?xml version="1.0" encoding="UTF-8"?>\n<asset name="${xmlText(name)}">sandbox</asset>\n`,
      );
    case 'zip':
      return makeZip([{ name: 'readme.txt', data: Buffer.from(`Sandbox archive ${name}\n`) }]);
    case 'docx':
      return makeDocx(name);
    case 'xlsx': {
      const book = new ExcelJS.Workbook();
      const sheet = book.addWorksheet('Sheet1');
      sheet.addRow(['reference', 'name']);
      sheet.addRow([name, 'Sandbox file']);
      return Buffer.from(await book.xlsx.writeBuffer());
    }
  }
}

function csvCell(text: string): string {
  return /[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function xmlText(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('"', '&quot;');
}

/** A one-page PDF 1.4 with a correct cross-reference table. */
function makePdf(text: string): Buffer {
  const safe = text.replace(/[()\\]/g, '');
  const stream = `BT /F1 12 Tf 72 720 Td (${safe}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xrefAt = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

function makeDocx(name: string): Buffer {
  const text = xmlText(`Sandbox document ${name}`);
  return makeZip([
    {
      name: '[Content_Types].xml',
      data: Buffer.from(
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
      ),
    },
    {
      name: '_rels/.rels',
      data: Buffer.from(
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
      ),
    },
    {
      name: 'word/document.xml',
      data: Buffer.from(
        `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>${text}</w:t></w:r></w:p></w:body></w:document>`,
      ),
    },
  ]);
}

/** A zip archive with stored (uncompressed) entries: enough for small generated documents. */
export function makeZip(entries: Array<{ name: string; data: Buffer }>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const { name, data } of entries) {
    const nameBytes = Buffer.from(name, 'utf8');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(0, 8); // stored
    local.writeUInt16LE(0, 10); // time
    local.writeUInt16LE(0x21, 12); // date: 1980-01-01
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // version made by
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(0, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, data);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + data.length;
  }
  const centralSize = centrals.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...centrals, end]);
}
