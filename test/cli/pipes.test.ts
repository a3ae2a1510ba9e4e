// The CLI in a shell pipeline, as people use it: a reader that closes early (`| head -1`) ends the
// command quietly (no EPIPE stack trace); `export --out -` (or /dev/stdout) writes the export itself
// on stdout; a run refused for a bad flag before its first row is not listed by `runs`.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'papaparse';
import { describe, expect, it } from 'vitest';
import { cliEntry } from '../helpers/cli-entry.js';
import { runCliProcess } from '../helpers/cli-process.js';
import { sandboxFlags, useSandbox } from '../helpers/sandbox.js';

const cwd = mkdtempSync(join(tmpdir(), 'pipes-'));

/**
 * `catalog-io ARGS | READER` in bash (a real pipe, as a shell makes it): the CLI's exit code
 * (PIPESTATUS), its stderr, and what the reader printed. Asynchronous: the sandbox answers meanwhile.
 */
async function piped(
  args: string[],
  reader: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const entry = cliEntry()
    .map((a) => `'${a}'`)
    .join(' ');
  const script = `'${process.execPath}' ${entry} ${quoted} 2>cli-stderr.txt | ${reader}; echo "exit \${PIPESTATUS[0]}" >&2; cat cli-stderr.txt >&2`;
  const { stdout, stderr } = await bash(script);
  const code = Number(/exit (\d+)/.exec(stderr)?.[1] ?? -1);
  return { code, stdout, stderr: stderr.replace(/exit \d+\n/, '') };
}

/** A bash script run in the working folder: what it printed. */
async function bash(script: string): Promise<{ stdout: string; stderr: string }> {
  const child = spawn('bash', ['-c', script], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => {
    stdout += c;
  });
  child.stderr.on('data', (c) => {
    stderr += c;
  });
  await new Promise((resolve) => child.on('close', resolve));
  return { stdout, stderr };
}

describe('the CLI in pipelines', () => {
  const fixture = useSandbox();

  it('export --out - writes CSV (or NDJSON) on stdout; --out /dev/stdout too', async () => {
    const flags = sandboxFlags(fixture.sb, { rateLimit: 'off' });
    const csv = await runCliProcess(['export', 'products', '--out', '-', ...flags], {
      cwd,
      timeoutMs: 60_000,
    });
    expect(csv.code, csv.stderr).toBe(0);
    const rows = parse<Record<string, string>>(csv.stdout, { header: true, skipEmptyLines: true });
    expect(rows.errors).toEqual([]);
    expect(rows.data.length).toBeGreaterThan(0);
    expect(rows.meta.fields).toContain('prod_ref');
    expect(csv.stderr).toContain('wrote standard output');

    const ndjson = await runCliProcess(
      ['export', 'products', '--out', '/dev/stdout', '--format', 'ndjson', ...flags],
      { cwd, timeoutMs: 60_000 },
    );
    expect(ndjson.code, ndjson.stderr).toBe(0);
    const records = ndjson.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records).toHaveLength(rows.data.length);
    expect(ndjson.stderr).not.toContain('EEXIST');

    const xlsx = await runCliProcess(['export', 'products', '--out', '-', '--format', 'xlsx', ...flags], {
      cwd,
    });
    expect(xlsx.code).toBe(2);
    expect(xlsx.stderr).toContain('an XLSX workbook needs a file');
  }, 90_000);

  it('a reader that closes early: exit quietly, no EPIPE', async () => {
    const flags = sandboxFlags(fixture.sb, { rateLimit: 'off' });
    const exported = await piped(['export', 'products', '--out', '-', ...flags], 'head -1');
    expect(exported.stdout.split('\n')[0]).toContain('prod_ref');
    expect(exported.stderr).not.toMatch(/EPIPE|INTERNAL|at .*\.ts:\d+/);
    expect(exported.code).toBe(0);
    // Nothing read at all: the first write already finds the pipe closed.
    const help = await piped(['--help'], 'true');
    expect(help.stderr).not.toMatch(/EPIPE|INTERNAL/);
    const runs = await piped(['runs', '--json'], 'true');
    expect(runs.stderr).not.toMatch(/EPIPE|INTERNAL/);
    expect(runs.code).toBe(0);
  }, 90_000);

  it('a run refused for a bad flag is not listed as a run', async () => {
    writeFileSync(join(cwd, 'feed.csv'), 'prod_ref,prod_title\nBF-1,One\n');
    const flags = sandboxFlags(fixture.sb, { rateLimit: 'off' });
    for (const bad of [
      ['--encoding', 'nope'],
      ['--format', 'xyz'],
    ]) {
      const run = await runCliProcess(['import', 'feed.csv', '--entity', 'products', ...bad, ...flags], {
        cwd,
      });
      expect(run.code).toBe(2);
    }
    const listed = await runCliProcess(['runs', '--json'], { cwd });
    expect(JSON.parse(listed.stdout)).toEqual([]);
    // A run that did start is listed.
    const ok = await runCliProcess(['import', 'feed.csv', '--entity', 'products', ...flags], { cwd });
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse((await runCliProcess(['runs', '--json'], { cwd })).stdout)).toHaveLength(1);
  }, 90_000);

  // A named pipe and a process substitution are read once, as standard input is: the import used to
  // hash them whole first, then found them empty (or waited for a second writer, for ever).
  it('import from a named pipe or <(...) reads the feed once', async () => {
    const { sb } = fixture;
    const rows = ['prod_ref,prod_title'];
    for (let i = 1; i <= 50; i++) rows.push(`FIFO-${i},Item ${i}`);
    writeFileSync(join(cwd, 'fifo-feed.csv'), `${rows.join('\n')}\n`);
    const entry = cliEntry()
      .map((a) => `'${a}'`)
      .join(' ');
    const flags = [...sandboxFlags(sb, { rateLimit: 'off' }), '--entity', 'products', '--json'].join(' ');
    const cli = `'${process.execPath}' ${entry}`;
    const script = [
      'rm -f feed.fifo && mkfifo feed.fifo',
      '(cat fifo-feed.csv > feed.fifo &)',
      `timeout 60 ${cli} import feed.fifo ${flags} > fifo.json; echo "fifo $?"`,
      `timeout 60 ${cli} import <(cat fifo-feed.csv) ${flags} --plan > subst.json; echo "subst $?"`,
    ].join('\n');
    const { stdout: out, stderr: err } = await bash(script);
    expect(out, err).toContain('fifo 0');
    expect(out, err).toContain('subst 0');
    const fifo = JSON.parse(readFileSync(join(cwd, 'fifo.json'), 'utf8'));
    expect(fifo.outcomes.created).toBe(50);
    const subst = JSON.parse(readFileSync(join(cwd, 'subst.json'), 'utf8'));
    expect(subst.outcomes.unchanged).toBe(50);
  }, 120_000);
});
