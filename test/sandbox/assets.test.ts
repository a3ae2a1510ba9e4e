// The static asset host: real files of each format to HEAD and GET alike, and every query switch.
import { imageSize } from 'image-size';
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';

const fx = useSandbox({ seed: 'empty' });

async function get(path: string, method = 'GET') {
  const res = await fetch(`${fx.sb.assetsUrl}/${path}`, { method, redirect: 'manual' });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('formats', () => {
  const images: Array<[string, string, string]> = [
    ['png', 'image/png', 'png'],
    ['jpg', 'image/jpeg', 'jpg'],
    ['jpeg', 'image/jpeg', 'jpg'],
    ['gif', 'image/gif', 'gif'],
    ['webp', 'image/webp', 'webp'],
    ['tif', 'image/tiff', 'tiff'],
    ['tiff', 'image/tiff', 'tiff'],
    ['psd', 'image/vnd.adobe.photoshop', 'psd'],
  ];

  it('images are real files of their format, 64x64 by default, w x h when asked', async () => {
    for (const [ext, contentType, detected] of images) {
      const plain = await get(`pic.${ext}`);
      expect(plain.res.headers.get('content-type'), ext).toBe(contentType);
      expect(imageSize(plain.bytes), ext).toMatchObject({ width: 64, height: 64, type: detected });
      const sized = await get(`pic.${ext}?w=123&h=45`);
      expect(imageSize(sized.bytes), ext).toMatchObject({ width: 123, height: 45 });
    }
  });

  it('HEAD answers the same status, Content-Type and Content-Length as GET, without a body', async () => {
    for (const path of ['a.png?w=10&h=20', 'a.pdf', 'a.xlsx', 'b.png?size=5000']) {
      const g = await get(path);
      const h = await get(path, 'HEAD');
      expect(h.res.status).toBe(200);
      expect(h.res.headers.get('content-type')).toBe(g.res.headers.get('content-type'));
      expect(h.res.headers.get('content-length')).toBe(String(g.bytes.length));
      expect(h.bytes.length).toBe(0);
    }
  });

  it('files are small valid documents with their Content-Type', async () => {
    const pdf = await get('doc.pdf');
    expect(pdf.res.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.bytes.subarray(0, 8).toString('latin1')).toBe('%PDF-1.4');
    expect(pdf.bytes.toString('latin1')).toMatch(/startxref\n\d+\n%%EOF\n$/);

    const json = await get('data.json');
    expect(JSON.parse(json.bytes.toString('utf8'))).toMatchObject({ name: 'data.json' });
    expect((await get('data.csv')).bytes.toString('utf8')).toBe('reference,name\ndata.csv,Sandbox file\n');
    expect((await get('data.txt')).res.headers.get('content-type')).toBe('text/plain');
    expect((await get('data.xml')).bytes.toString('utf8')).toMatch(/^<\?xml/);

    for (const ext of ['zip', 'docx', 'xlsx']) {
      const zip = await get(`pack.${ext}`);
      expect(zip.bytes.readUInt32LE(0), ext).toBe(0x04034b50);
      expect(zip.bytes.readUInt32LE(zip.bytes.length - 22), ext).toBe(0x06054b50);
    }
  });

  it('an xlsx opens as a workbook', async () => {
    const { default: ExcelJS } = await import('exceljs');
    const book = new ExcelJS.Workbook();
    await book.xlsx.load((await get('sheet.xlsx')).bytes as unknown as ArrayBuffer);
    expect(book.getWorksheet('Sheet1')?.getCell('A2').value).toBe('sheet.xlsx');
  });

  it('an unknown extension is 404', async () => {
    expect((await get('thing.exe')).res.status).toBe(404);
    expect((await get('noextension')).res.status).toBe(404);
  });

  it('only GET and HEAD', async () => {
    expect((await get('a.png', 'POST')).res.status).toBe(405);
  });
});

describe('switches', () => {
  it('?status=<code> answers that status to HEAD and GET', async () => {
    expect((await get('a.png?status=404')).res.status).toBe(404);
    expect((await get('a.png?status=503', 'HEAD')).res.status).toBe(503);
  });

  it('?redirect=1 answers 302 to the same asset without the switch', async () => {
    const { res } = await get('a.png?redirect=1&w=5&h=5');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${fx.sb.assetsUrl}/a.png?w=5&h=5`);
  });

  it('?type=<content-type> overrides it; ?type=none sends no Content-Type', async () => {
    expect((await get('a.png?type=text/html')).res.headers.get('content-type')).toBe('text/html');
    expect((await get('a.png?type=none')).res.headers.get('content-type')).toBeNull();
  });

  it('?empty=1 sends 0 bytes', async () => {
    const { res, bytes } = await get('a.png?empty=1');
    expect(res.headers.get('content-length')).toBe('0');
    expect(bytes.length).toBe(0);
  });

  it('?size=<bytes> pads the real image to that size; its dimensions still read', async () => {
    const { bytes } = await get('a.png?size=100000&w=7&h=9');
    expect(bytes.length).toBe(100_000);
    expect(imageSize(bytes)).toMatchObject({ width: 7, height: 9 });
  });

  it('?process=fail embeds the processing marker in a still-readable image', async () => {
    for (const ext of ['png', 'jpg', 'gif', 'psd']) {
      const { bytes } = await get(`a.${ext}?process=fail&w=8&h=6`);
      expect(bytes.includes(Buffer.from('sandbox:fail-processing')), ext).toBe(true);
      expect(imageSize(bytes), ext).toMatchObject({ width: 8, height: 6 });
    }
  });

  it('?corrupt=1 sends bytes whose dimensions cannot be read', async () => {
    const { res, bytes } = await get('a.png?corrupt=1');
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(bytes.length).toBeGreaterThan(0);
    expect(() => imageSize(bytes)).toThrow();
  });

  it('?delay=<ms> delays the headers and ?bodyDelay=<ms> the body; the file is complete', async () => {
    const { res, bytes } = await get('a.png?delay=20&bodyDelay=20');
    expect(res.status).toBe(200);
    expect(imageSize(bytes)).toMatchObject({ width: 64, height: 64 });
  });

  it('a malformed switch is a 400 that names it', async () => {
    const { res, bytes } = await get('a.png?w=0');
    expect(res.status).toBe(400);
    expect(bytes.toString('utf8')).toContain('Switch w=0');
  });
});
