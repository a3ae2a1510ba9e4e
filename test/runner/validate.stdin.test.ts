// `catalog-io validate -` reads the feed from stdin (yargs hands a lone `-` over as an empty string), and
// validateFile reports how far the reader is in the source, for the progress bar.
import { mkdtemp, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateFile } from '../../src/runner/validate.js';
import { runCliProcess } from '../helpers/cli-process.js';
import { demoModel } from '../mappers/demo-model.js';

/** The CLI in a child process in a scratch folder (the embedded sandbox keeps its state there). */
const runCli = (args: string[], stdin: string, cwd: string) => runCliProcess(args, { stdin, cwd });

describe('validate from stdin', () => {
  it('`validate -` reads the rows piped in (embedded sandbox tenant)', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'validate-stdin-'));
    const { code, stdout, stderr } = await runCli(
      ['validate', '-', '--json'],
      'prod_ref,prod_title,prod_weight\nS-1,Hat,1.5\nS-2,Cap,heavy\n',
      cwd,
    );
    expect(stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(code).toBe(1);
    const summary = JSON.parse(stdout.trim().split('\n').pop()!);
    expect(summary).toMatchObject({ source: 'stdin', rows: 2, outcomes: { valid: 1, invalid: 1 } });
  }, 60_000);
});

describe('validateFile progress', () => {
  it('passes the bytes read with each row, reaching the file size', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'validate-progress-'));
    const source = join(dir, 'feed.csv');
    const lines = ['prod_ref,prod_weight'];
    for (let i = 0; i < 5000; i += 1) lines.push(`P-${i},${i % 10}`);
    await writeFile(source, `${lines.join('\n')}\n`);
    const seen: Array<{ rows: number; bytes: number; total: number | undefined }> = [];
    await validateFile({
      source,
      model: demoModel(),
      profile: { entity: 'products' },
      onRow: (s, read) => seen.push({ rows: s.rows, bytes: read.bytesRead(), total: read.totalBytes }),
    });
    const size = (await stat(source)).size;
    expect(seen).toHaveLength(5000);
    expect(seen.every((p) => p.total === size)).toBe(true);
    for (let i = 1; i < seen.length; i += 1)
      expect(seen[i]!.bytes).toBeGreaterThanOrEqual(seen[i - 1]!.bytes);
    expect(seen.at(-1)!.bytes).toBe(size);
  });
});
