// `catalog-io preview`: what it prints and its exit codes, in-process and through a child process.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import { runCliProcess } from '../helpers/cli-process.js';
import { REALWORLD, tempFile } from './helpers.js';

/** The CLI in a child process with `stdin` piped in. */
const runCli = (args: string[], stdin: string) => runCliProcess(args, { stdin });

describe('preview command', () => {
  it('prints what was detected and the first rows as a table', async () => {
    const out = memoryOutput();
    const code = await main(
      ['preview', tempFile('p.csv', 'sku;name\nA;Hat\nB;Cap\nC;Bag\n'), '--limit', '2'],
      out,
    );
    expect(code).toBe(0);
    const text = out.stdout.join('\n');
    expect(text).toContain('format:    csv');
    expect(text).toContain('delimiter: ;');
    expect(text).toContain('columns:   2 (sku, name)');
    expect(text).toMatch(/line 2\s+A\s+Hat/);
    expect(text).toMatch(/line 3\s+B\s+Cap/);
    expect(text).not.toContain('Bag');
  });

  it('prints wide rows one field per line', async () => {
    const out = memoryOutput();
    const code = await main(['preview', join(REALWORLD, 'bagisto_products.xlsx'), '--limit', '1'], out);
    expect(code).toBe(0);
    expect(out.stdout).toContain('--- sheet products row 2 ---');
    expect(out.stdout.some((line) => /^sku\s+SP-001$/.test(line))).toBe(true);
  });

  it('--json prints rows as NDJSON on stdout and the detection on stderr', async () => {
    const out = memoryOutput();
    const path = join(REALWORLD, 'dummyjson_products.json');
    const code = await main(['preview', path, '--json', '--limit', '3'], out);
    expect(code).toBe(0);
    expect(out.stdout).toHaveLength(3);
    const first = JSON.parse(out.stdout[0]!);
    expect(first.location).toBe('item 1');
    expect(first.cells['dimensions.width']).toBe(15.14);
    expect(out.stderr.join('\n')).toContain('format:    json');
  });

  it('passes reader flags through', async () => {
    const out = memoryOutput();
    const path = tempFile('flags.txt', 'title\nsku|name\nA|x\n');
    const code = await main(
      ['preview', path, '--format', 'csv', '--header-row', '2', '--delimiter', '|', '--json'],
      out,
    );
    expect(code).toBe(0);
    expect(JSON.parse(out.stdout[0]!).cells).toEqual({ sku: 'A', name: 'x' });
  });

  it('exit 1 when a previewed row has an error', async () => {
    const out = memoryOutput();
    const code = await main(['preview', tempFile('ragged.csv', 'a,b\n1,2,3\n')], out);
    expect(code).toBe(1);
    expect(out.stdout.join('\n')).toContain('CSV_ROW_LENGTH');
  });

  it('exit 2 with one message on stderr for a file error', async () => {
    const out = memoryOutput();
    const code = await main(['preview', tempFile('only-header.csv', 'a,b\n')], out);
    expect(code).toBe(2);
    expect(out.stderr).toHaveLength(1);
    expect(out.stderr[0]).toContain('[CSV_NO_DATA]');
    expect(out.stdout).toHaveLength(0);
  });

  it('reads stdin with `-` in a child process', async () => {
    const result = await runCli(['preview', '-', '--json'], '{"id":1}\n{"id":2}\n');
    expect(result.code).toBe(0);
    expect(
      result.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).cells.id),
    ).toEqual([1, 2]);
    expect(result.stderr).toContain('format:    ndjson');
  });

  it('a bad file through stdin exits 2 without a stack trace', async () => {
    const result = await runCli(['preview', '-', '--format', 'json'], '[{"id": 1,}]');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('[JSON_SYNTAX]');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
