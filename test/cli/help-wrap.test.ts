// `--help` is wrapped to the terminal's width (off a terminal: COLUMNS) at word boundaries: a line never
// breaks inside a word of an option's description. The help's layout library had cut lines every N
// characters, mid-word (`the pr` / `ofile's`), and piped help ignored COLUMNS.
import { describe, expect, it } from 'vitest';
import type { Argv } from 'yargs';
import yargs from 'yargs/yargs';
import { importCommand } from '../../src/cli/commands/import.js';
import { memoryOutput } from '../../src/cli/output.js';
import { runCliProcess } from '../helpers/cli-process.js';

/** The import command's options and their descriptions, as its builder declares them. */
function importDescriptions(): Record<string, string> {
  const y = yargs([]);
  (importCommand(memoryOutput(), () => {}).builder as (y: Argv) => Argv)(y);
  const usage = (
    y as unknown as {
      getInternalMethods(): { getUsageInstance(): { getDescriptions(): Record<string, string | undefined> } };
    }
  )
    .getInternalMethods()
    .getUsageInstance()
    .getDescriptions();
  return Object.fromEntries(
    // yargs' own (`--help`, `--version`: `__yargsString__:...`, translated when printed) are not the command's.
    Object.entries(usage).filter(
      (e): e is [string, string] => typeof e[1] === 'string' && e[1] !== '' && !e[1].startsWith('__yargs'),
    ),
  );
}

/** Runs of spaces and line breaks as one space: the words in their order. */
const words = (text: string) => text.replace(/\s+/g, ' ').trim();

describe('help is wrapped at word boundaries to the terminal width', () => {
  const descriptions = importDescriptions();

  it('knows the options it checks', () => {
    expect(Object.keys(descriptions)).toEqual(
      expect.arrayContaining(['entity', 'profile', 'report', 'json']),
    );
    expect(Object.keys(descriptions).length).toBeGreaterThan(30);
  });

  for (const columns of [72, 100]) {
    it(`catalog-io import --help at COLUMNS=${columns}: no line is wider, none breaks inside a word`, async () => {
      const run = await runCliProcess(['import', '--help'], { env: { COLUMNS: String(columns) } });
      expect(run.code, run.stderr).toBe(0);
      const lines = run.stdout.split('\n');
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(columns);
      // Each description's words appear whole and in order: a break inside a word would split one.
      const printed = words(run.stdout);
      for (const [option, text] of Object.entries(descriptions)) {
        expect(printed, `--${option}: ${text}`).toContain(words(text));
      }
      // Wrapped, not one long line per option: the narrow help has more lines.
      expect(lines.length).toBeGreaterThan(Object.keys(descriptions).length);
    }, 60_000);
  }
});
