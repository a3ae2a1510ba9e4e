// import end to end with the parts for many feeds: the newest file of a pattern on an SFTP server,
// moved to done/ after a run with every row ok, and the run's summary.json sent to a webhook.
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNATURE_HEADER } from '../../src/notify/index.js';
import type { RunSummary } from '../../src/runner/summary-types.js';
import { startCli } from '../helpers/cli-child.js';
import { useSandbox } from '../helpers/sandbox.js';
import { type SftpServer, startSftpServer } from '../helpers/sftp-server.js';

const root = mkdtempSync(join(tmpdir(), 'remote-import-'));
const cwd = mkdtempSync(join(tmpdir(), 'remote-import-cwd-'));
let sftp: SftpServer;
let hook: Server;
let hookUrl = '';
const deliveries: Array<{ signature: unknown; body: RunSummary }> = [];

beforeAll(async () => {
  mkdirSync(join(root, 'out'));
  sftp = await startSftpServer({ root, user: 'feeds', password: 'sftp-pw' });
  hook = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      deliveries.push({ signature: req.headers[SIGNATURE_HEADER], body: JSON.parse(body) as RunSummary });
      res.end();
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  await sftp.close();
  await new Promise<void>((resolve) => hook.close(() => resolve()));
});

describe('import from SFTP with --done-dir and --notify', () => {
  const fixture = useSandbox();

  it('reads the newest match, moves it to done/ and tells the webhook; a failing run stays and is told', async () => {
    const { sb } = fixture;
    writeFileSync(join(root, 'out/feed-1.csv'), 'prod_ref,prod_title\nOLD-1,Old\n');
    utimesSync(join(root, 'out/feed-1.csv'), new Date('2026-01-01'), new Date('2026-01-01'));
    writeFileSync(join(root, 'out/feed-2.csv'), 'prod_ref,prod_title\nRN-1,One\nRN-2,Two\n');
    const env = {
      CATALOG_API_KEY: sb.apiKey,
      CATALOG_IO_WEBHOOK_SECRET: 'whsec',
    };
    // The SFTP login and the server's known key come from the config file (a worker's tenant file),
    // paths in it read relative to it.
    writeFileSync(join(cwd, 'known_hosts'), `${sftp.knownHostsLine}\n`);
    writeFileSync(
      join(cwd, 'tenant.json'),
      JSON.stringify({ sftp: { password: 'sftp-pw', knownHosts: 'known_hosts' } }),
    );
    const base = `sftp://feeds@127.0.0.1:${sftp.port}/out`;
    const args = [
      'import',
      '--config',
      join(cwd, 'tenant.json'),
      `${base}/feed-*.csv`,
      '--entity',
      'products',
      '--catalog-url',
      sb.catalogUrl,
      '--dam-url',
      sb.damUrl,
      '--done-dir',
      'done',
      '--notify',
      `webhook:${hookUrl}`,
      '--notify-on',
      'always',
      '--quiet',
    ];
    // A server whose key is not known is refused, with the fingerprint to pin (--known-hosts wins
    // over the file's).
    writeFileSync(join(cwd, 'empty_known_hosts'), '');
    const unknown = await startCli([...args, '--known-hosts', 'empty_known_hosts'], { cwd, env }).done;
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(`is not known: ${sftp.hostFingerprint} (ssh-ed25519)`);
    expect(unknown.stderr).toContain(`CATALOG_IO_SFTP_HOST_KEY=${sftp.hostFingerprint}`);
    expect(unknown.stderr).not.toContain('sftp-pw');
    expect(readdirSync(join(root, 'out')).sort()).toEqual(['feed-1.csv', 'feed-2.csv']);
    const refusedDelivery = deliveries.pop();
    expect(refusedDelivery?.body).toMatchObject({ state: 'crashed', exitCode: 2 });

    const ok = await startCli(args, { cwd, env }).done;
    expect(ok.code, ok.stderr).toBe(0);
    // What is printed or told loses the URL's user part, as every URL shown does (it may be a token).
    const shown = base.replace('feeds@', '***@');
    expect(ok.stderr).toContain(`moved: ${shown}/feed-2.csv to /out/done/feed-2.csv`);
    expect(readdirSync(join(root, 'out')).sort()).toEqual(['done', 'feed-1.csv']);
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]!.signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(deliveries[0]!.body).toMatchObject({
      command: 'import',
      source: `${shown}/feed-2.csv`,
      state: 'finished',
      exitCode: 0,
      rows: 2,
      outcomes: { created: 2 },
    });
    expect(JSON.stringify(deliveries[0]!.body)).not.toContain(sb.apiKey);

    // A row that fails validation: exit 1, the file stays, the webhook is told (failure only).
    writeFileSync(join(root, 'out/feed-3.csv'), 'prod_ref,prod_weight\nRN-3,heavy\n');
    const bad = await startCli([...args.slice(0, -2), 'failure', '--quiet'], { cwd, env }).done;
    expect(bad.code, bad.stderr).toBe(1);
    expect(readdirSync(join(root, 'out')).sort()).toEqual(['done', 'feed-1.csv', 'feed-3.csv']);
    expect(deliveries).toHaveLength(2);
    expect(deliveries[1]!.body).toMatchObject({
      state: 'finished',
      exitCode: 1,
      source: `${shown}/feed-3.csv`,
    });
  }, 90_000);

  it('a run that cannot start (the SFTP server down) is told too', async () => {
    const { sb } = fixture;
    const before = deliveries.length;
    const down = await startCli(
      [
        'import',
        'sftp://feeds@127.0.0.1:1/out/feed-*.csv',
        '--entity',
        'products',
        '--catalog-url',
        sb.catalogUrl,
        '--dam-url',
        sb.damUrl,
        '--notify',
        `webhook:${hookUrl}`,
        '--quiet',
      ],
      { cwd, env: { CATALOG_API_KEY: sb.apiKey, CATALOG_IO_SFTP_PASSWORD: 'sftp-pw' } },
    ).done;
    expect(down.code).toBe(2);
    expect(down.stderr).toContain('[SOURCE_UNREADABLE]');
    expect(deliveries).toHaveLength(before + 1);
    expect(deliveries.at(-1)!.body).toMatchObject({
      state: 'crashed',
      exitCode: 2,
      source: 'sftp://feeds@127.0.0.1:1/out/feed-*.csv',
      message: expect.stringContaining('ECONNREFUSED'),
    });
  }, 60_000);

  it('a run that crashes names its own run (the folder to resume), one that never started none', async () => {
    const { sb } = fixture;
    // A report on a full disk: the run fails after it started, its run folder kept to resume.
    const here = mkdtempSync(join(tmpdir(), 'remote-import-crash-'));
    writeFileSync(join(here, 'feed.csv'), 'prod_ref,prod_title\nCRASH-1,One\n');
    symlinkSync('/dev/full', join(here, 'full.csv'));
    const before = deliveries.length;
    const crashed = await startCli(
      [
        'import',
        'feed.csv',
        '--entity',
        'products',
        '--report',
        'full.csv',
        '--catalog-url',
        sb.catalogUrl,
        '--dam-url',
        sb.damUrl,
        '--notify',
        `webhook:${hookUrl}`,
        '--quiet',
      ],
      { cwd: here, env: { CATALOG_API_KEY: sb.apiKey } },
    ).done;
    expect(crashed.code, crashed.stderr).toBe(2);
    expect(crashed.stderr).toContain('[OUTPUT_FAILED]');
    const runs = readdirSync(join(here, '.catalog-io', 'runs'));
    expect(runs).toHaveLength(1);
    expect(
      JSON.parse(readFileSync(join(here, '.catalog-io', 'runs', runs[0]!, 'run.json'), 'utf8')).state,
    ).not.toBe('finished'); // kept to resume
    expect(deliveries).toHaveLength(before + 1);
    expect(deliveries.at(-1)!.body).toMatchObject({ runId: runs[0], state: 'crashed', exitCode: 2 });
    // The SFTP server down (the test before): no run was recorded, no run id made up.
    expect(deliveries.at(-2)!.body.runId).toBe('');
  }, 60_000);
});
