// Guards with no gap, through the CLI in child processes: a formula in a source's header is guarded
// in the rejects CSV (and read back as the name it was); the API key given in any JSON shape of the
// config file, pasted into CATALOG_URL or into its path is never printed; a source URL's credential-like
// query parameters are masked on stderr and in run.json, summary.json, the report and the journal.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliProcess } from '../helpers/cli-process.js';
import { useSandbox } from '../helpers/sandbox.js';
import { tempDir } from '../runner/import.support.js';

const fixture = useSandbox({ seed: 'empty' });
let root: string;

beforeAll(() => {
  root = tempDir('guards');
});

function folder(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  return dir;
}

const sandboxEnv = () => ({
  CATALOG_URL: fixture.sb.catalogUrl,
  DAM_URL: fixture.sb.damUrl,
  CATALOG_API_KEY: fixture.sb.apiKey,
});

/** Every file under `dir`, as text. */
function allText(dir: string): string {
  let text = '';
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    text += statSync(file).isDirectory() ? allText(file) : readFileSync(file, 'latin1');
  }
  return text;
}

describe('the formula guard covers headers', () => {
  it('a formula header is guarded in the rejects CSV and reads back as the name it was', async () => {
    const cwd = folder('formula');
    const header = '=HYPERLINK("http://evil","hdr")';
    writeFileSync(
      join(cwd, 'feed.csv'),
      `prod_ref,prod_weight,"${header.replaceAll('"', '""')}"\nF-1,heavy,x\nF-2,3,y\n`,
    );
    const run = await runCliProcess(['validate', 'feed.csv', '--rejects', 'rejects.csv'], {
      cwd,
      env: sandboxEnv(),
    });
    expect(run.code, run.stderr).toBe(1);
    const rejects = readFileSync(join(cwd, 'rejects.csv'), 'utf8').replace(/^\uFEFF/, '');
    const [first] = rejects.split('\r\n');
    expect(first).toBe(`prod_ref,prod_weight,"'=HYPERLINK(""http://evil"",""hdr"")",_error,_source`);
    // Imported again, the guarded header is the source's column again (and still matches no field).
    const again = await runCliProcess(['validate', 'rejects.csv'], { cwd, env: sandboxEnv() });
    expect(again.stderr).toContain(`column ${JSON.stringify(header)} does not match a field`);
  }, 60_000);
});

describe('the API key is never printed', () => {
  const key = 'sk_live_9f8e7d6c5b4a39281706';
  const shapes: Array<[string, unknown]> = [
    ['a list', [key]],
    ['an object', { value: key }],
    ['a number next to it', [1, { deep: [key] }]],
  ];
  for (const [shape, apiKey] of shapes) {
    it(`apiKey given as ${shape} in the config file`, async () => {
      const cwd = folder(`config-${shape.replaceAll(' ', '-')}`);
      writeFileSync(
        join(cwd, 'catalog-io.config.json'),
        JSON.stringify({ catalogUrl: fixture.sb.catalogUrl, apiKey }),
      );
      const run = await runCliProcess(['schema', 'pull'], { cwd, env: {} });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('[CONFIG_INVALID]');
      expect(run.stderr).toContain('apiKey in');
      expect(`${run.stdout}${run.stderr}`).not.toContain('9f8e7d6c5b4a');
    }, 60_000);
  }

  it('a config file that is not JSON says where, not what is around', async () => {
    const cwd = folder('config-syntax');
    writeFileSync(join(cwd, 'catalog-io.config.json'), `{\n  "apiKey": "${key}" oops\n}`);
    const run = await runCliProcess(['schema', 'pull'], { cwd, env: {} });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/not valid JSON at line 2, column \d+/);
    expect(run.stderr).not.toContain('9f8e7d6c5b4a');
  }, 60_000);

  it('the key pasted into CATALOG_URL, or into its path', async () => {
    const cwd = folder('url-key');
    for (const env of [
      { CATALOG_URL: key, CATALOG_API_KEY: 'another-key-1234' },
      { CATALOG_URL: `${fixture.sb.catalogUrl}/${key}`, CATALOG_API_KEY: key },
      { CATALOG_URL: `${fixture.sb.catalogUrl}?api_key=${key}`, CATALOG_API_KEY: 'another-key-1234' },
    ]) {
      const run = await runCliProcess(['schema', 'pull'], { cwd, env });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain('[CONFIG_INVALID]');
      expect(`${run.stdout}${run.stderr}`).not.toContain('9f8e7d6c5b4a');
    }
  }, 60_000);
});

describe('credential-like query parameters', () => {
  let server: Server;
  let feed = '';
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/csv' });
      res.end(feed);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => {
    server.close();
  });

  it('are masked on stderr and in run.json, summary.json, the report and the journal', async () => {
    const cwd = folder('query');
    // An image whose URL carries a token and cannot be fetched: its failure names the URL.
    feed =
      'prod_ref,prod_title,prod_images\nQ-1,One,http://127.0.0.1:9/p.jpg?access_token=IMGTOKEN77\nQ-2,Two,\n';
    const port = (server.address() as AddressInfo).port;
    const source = `http://127.0.0.1:${port}/feed.csv?pwd=hunter2pw&password=pa55word&signature=SIGN4711&sig=S1G&auth=AUTH99&user=kept`;
    const run = await runCliProcess(
      ['import', source, '--report', 'report.csv', '--summary', 'summary.json', '--rate-limit', 'off'],
      { cwd, env: sandboxEnv() },
    );
    expect(run.stderr).not.toContain('INTERNAL');
    expect(run.stderr).toContain('user=kept');
    const everything = `${run.stdout}${run.stderr}${allText(cwd)}`;
    expect(everything).toContain('pwd=***');
    for (const secret of ['hunter2pw', 'pa55word', 'SIGN4711', 'S1G', 'AUTH99', 'IMGTOKEN77'])
      expect(everything, secret).not.toContain(secret);
  }, 120_000);
});
