// Rejects that go straight back in: a windows-1252 feed with `;` imported under --strict, its rejects file
// fixed in place and imported as it is (its `_error` and `_source` columns ignored, also under --strict).
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import { call, sandboxFlags, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox({ seed: 'empty' });
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rejects-roundtrip-'));
});

async function importFile(file: string, ...extra: string[]) {
  const out = memoryOutput();
  const code = await main(
    ['import', file, '--strict', '--json', ...extra, ...sandboxFlags(fixture.sb, { rateLimit: 'off' })],
    out,
  );
  return { code, summary: JSON.parse(out.stdout[0] ?? '{}') as { outcomes: Record<string, number> }, out };
}

async function product(ref: string): Promise<Record<string, unknown> | undefined> {
  const res = await call(fixture.sb.catalogUrl, `/Products?$filter=prod_ref eq '${ref}'`, {
    key: fixture.sb.apiKey,
  });
  return (res.body as { value: Array<Record<string, unknown>> }).value[0];
}

describe('rejects file round trip', () => {
  it('windows-1252 and ";" kept; fixed rows import from the rejects file under --strict', async () => {
    const feed = join(dir, 'lieferant.csv');
    const rows = [
      'prod_ref;prod_title;prod_weight',
      'RT-1;Größe M;0,5',
      'RT-2;Übergröße;schwer',
      'RT-3;"=HYPERLINK(""http://x"";""klick"")";leicht',
    ];
    await writeFile(feed, iconv.encode(`${rows.join('\r\n')}\r\n`, 'windows-1252'));
    const rejects = join(dir, 'rejects.csv');
    const first = await importFile(feed, '--rejects', rejects);
    expect(first.code, first.out.stderr.join('\n')).toBe(1);
    expect(first.summary.outcomes).toMatchObject({ created: 1, invalid: 2 });

    const bytes = await readFile(rejects);
    // The source's encoding (no UTF-8 BOM, `ü` as one byte), its delimiter, header and line numbers.
    expect(bytes[0]).toBe(0x70); // p
    const text = iconv.decode(bytes, 'windows-1252');
    const lines = text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('prod_ref;prod_title;prod_weight;_error;_source');
    expect(lines[1]).toMatch(/^RT-2;Übergröße;schwer;.*must be a number.*;line 3$/);
    // The formula a supplier sent is guarded for the spreadsheet that opens the file.
    expect(lines[2]).toMatch(/^RT-3;"'=HYPERLINK\(""http:\/\/x"";""klick""\)";leicht;.*;line 4$/);
    expect(bytes.includes(Buffer.from('Übergröße', 'latin1'))).toBe(true);

    // Fix the cells where they are, then import the rejects file as it is.
    await writeFile(
      rejects,
      iconv.encode(text.replace(';schwer;', ';1,2;').replace(';leicht;', ';0,1;'), 'windows-1252'),
    );
    const again = await importFile(rejects);
    expect(again.out.stderr.join('\n')).not.toContain('_error');
    expect(again.code).toBe(0);
    expect(again.summary.outcomes).toMatchObject({ created: 2, invalid: 0 });
    expect(await product('RT-2')).toMatchObject({ prod_title: 'Übergröße', prod_weight: 1.2 });
    expect(await product('RT-3')).toMatchObject({
      prod_title: '=HYPERLINK("http://x";"klick")',
      prod_weight: 0.1,
    });
  });
});
