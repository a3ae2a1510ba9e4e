// A run loads only the command it names; help and a misspelt name still see every command.
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import { runCliProcess } from '../helpers/cli-process.js';

const NAMES = ['sandbox', 'preview', 'validate', 'profile', 'schema', 'import', 'export', 'demo'];

describe('the command list', () => {
  it('help lists every command; a named command has its own help', async () => {
    const [all, validate] = await Promise.all([
      runCliProcess(['--help']),
      runCliProcess(['validate', '--help']),
    ]);
    expect(all.code).toBe(0);
    for (const name of NAMES) expect(all.stdout).toContain(`catalog-io ${name}`);
    expect(validate.code).toBe(0);
    expect(validate.stdout).toContain('--schemas');
    expect(validate.stdout).not.toContain('catalog-io import <source>');
  }, 60_000);

  it('a misspelt command is answered with the one it resembles', async () => {
    const out = memoryOutput();
    expect(await main(['validat', 'feed.csv'], out)).toBe(2);
    expect(out.stderr.join('\n')).toContain('Did you mean validate?');
  });
});
