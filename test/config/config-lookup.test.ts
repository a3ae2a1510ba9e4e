// The config file is found as git finds its repository: in the working folder or the nearest folder
// above it, up to the home folder (or the filesystem root outside it). When none gives a catalog URL
// and the embedded sandbox is used instead, its line says where the file was looked for, and a key that
// is set but not used gets a hint. Run as a user runs it: the shipped CLI in a child process, from a
// subfolder, against a sandbox over loopback.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { findConfigFile } from '../../src/config/config.js';
import { runCliProcess } from '../helpers/cli-process.js';
import { useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox();
let root: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'config-lookup-'));
});

async function requests(): Promise<number> {
  const res = await fetch(`${fixture.sb.origin}/_sandbox/stats`);
  return ((await res.json()) as { total: number }).total;
}

/** A home folder with a project in it, a feed in a subfolder of the project. */
async function layout(name: string): Promise<{ home: string; project: string; sub: string; feed: string }> {
  const home = path.join(root, name, 'home');
  const project = path.join(home, 'project');
  const sub = path.join(project, 'feeds', 'incoming');
  await mkdir(sub, { recursive: true });
  const feed = path.join(sub, 'feed.csv');
  await writeFile(feed, 'prod_ref,prod_title\nL-1,Lamp\n');
  return { home, project, sub, feed };
}

/** `profile init` from `cwd`, with the key in the environment and no URL there. */
function init(feed: string, cwd: string, home: string) {
  return runCliProcess(['profile', 'init', feed, '--out', path.join(cwd, 'profile.json')], {
    cwd,
    env: { HOME: home, CATALOG_URL: '', DAM_URL: '', CATALOG_API_KEY: fixture.sb.apiKey },
    timeoutMs: 60_000,
  });
}

describe('the config file', () => {
  it('in a folder above the working folder is read: profile init reaches its tenant', async () => {
    const { home, project, sub, feed } = await layout('above');
    const config = { catalogUrl: fixture.sb.catalogUrl, damUrl: fixture.sb.damUrl };
    await writeFile(path.join(project, 'catalog-io.config.json'), JSON.stringify(config));
    const before = await requests();
    const run = await init(feed, sub, home);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain('embedded sandbox');
    expect(run.stderr).toContain('profile written to');
    expect(await requests()).toBeGreaterThan(before);
    expect(run.stderr).not.toContain(fixture.sb.apiKey);
  });

  it('above the home folder is not read; the embedded sandbox line says where it looked, with a hint for the key', async () => {
    const { home, sub, feed } = await layout('outside');
    const config = { catalogUrl: fixture.sb.catalogUrl, damUrl: fixture.sb.damUrl };
    await writeFile(path.join(path.dirname(home), 'catalog-io.config.json'), JSON.stringify(config));
    const before = await requests();
    const run = await init(feed, sub, home);
    expect(run.code, run.stderr).toBe(0);
    expect(await requests()).toBe(before);
    const lines = run.stderr.split('\n');
    expect(lines[0]).toMatch(/^Using the embedded sandbox tenant at http:\/\/127\.0\.0\.1:\d+\//);
    expect(lines[0]).toContain(
      `(no CATALOG_URL set, no --catalog-url, no catalog-io.config.json in ${sub} or a folder above it up to ${home}; state kept in .catalog-io/sandbox)`,
    );
    expect(lines[1]).toBe(
      'hint: an API key is set (CATALOG_API_KEY) but no catalog URL, so the key is not used: set CATALOG_URL, or catalogUrl in a catalog-io.config.json in this folder or one above it',
    );
    expect(run.stderr).not.toContain(fixture.sb.apiKey);
  });

  it('found without a catalogUrl: the line names the file', async () => {
    const { home, project, sub, feed } = await layout('no-url');
    const file = path.join(project, 'catalog-io.config.json');
    await writeFile(file, JSON.stringify({ concurrency: 4 }));
    const run = await init(feed, sub, home);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.split('\n')[0]).toContain(
      `no CATALOG_URL set, no --catalog-url, no catalogUrl in ${file};`,
    );
  });

  it('the nearest one wins; outside the home folder the lookup goes up to the filesystem root', async () => {
    const { home, project, sub } = await layout('nearest');
    await writeFile(path.join(home, 'catalog-io.config.json'), '{}');
    await writeFile(path.join(project, 'catalog-io.config.json'), '{}');
    expect(findConfigFile(sub, home)).toEqual({ file: path.join(project, 'catalog-io.config.json') });
    expect(findConfigFile(path.dirname(project), home)).toEqual({
      file: path.join(home, 'catalog-io.config.json'),
    });
    const elsewhere = path.join(root, 'nearest', 'elsewhere');
    await mkdir(elsewhere);
    const found = findConfigFile(elsewhere, home);
    // The folders above the temporary root hold no config file: the search reached the root.
    expect(found).toEqual({ file: undefined, search: { from: elsewhere, to: path.parse(elsewhere).root } });
  });
});
