// What `profile init` says of each header, as a user reads it on stderr (the shipped CLI, a child process,
// against a sandbox over loopback): a header placed on a field is never said to be "not placed".
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliProcess } from '../helpers/cli-process.js';
import { sandboxFlags, useSandbox } from '../helpers/sandbox.js';
import { REALWORLD } from '../helpers/shared.js';

const fixture = useSandbox();

describe('profile init notes', () => {
  it('eShopOnContainers: Name is the title and, with no ref column, the refs; it is said once, as placed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'init-notes-'));
    const run = await runCliProcess(
      [
        'profile',
        'init',
        join(REALWORLD, 'eshoponcontainersai_CatalogItems.csv'),
        '--out',
        join(dir, 'eshop.json'),
        ...sandboxFlags(fixture.sb),
      ],
      { cwd: dir, timeoutMs: 60_000 },
    );
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stderr.split('\n').filter((l) => l.startsWith('  "Name"'));
    expect(lines).toEqual([
      '  "Name" -> prod_title: check: no column holds a reference: prod_ref and frmt_ref are taken from "Name"',
    ]);
    expect(run.stderr).not.toMatch(/not placed \(written as null[^\n]*"Name"/);
  });
});
