// sftp:// sources against a real SFTP server on loopback (ssh2's server mode): logins by password
// and by key, host key pinning, the newest match of a pattern, streaming, the move to done/.
import { createHmac, randomBytes } from 'node:crypto';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openSource } from '../../src/readers/index.js';
import { moveRemote, REMOTE_ENV, resolveRemote } from '../../src/readers/remote/index.js';
import { generateKeyPair, type SftpServer, startSftpServer } from '../helpers/sftp-server.js';
import { collect, expectCode, plain } from './helpers.js';

const root = mkdtempSync(join(tmpdir(), 'sftp-root-'));
const keys = generateKeyPair();
const keyFile = join(mkdtempSync(join(tmpdir(), 'sftp-key-')), 'id_ed25519');
writeFileSync(keyFile, keys.private, { mode: 0o600 });
let server: SftpServer;
let base = '';
const saved = { ...process.env };
const knownHosts = join(mkdtempSync(join(tmpdir(), 'sftp-known-')), 'known_hosts');

beforeAll(async () => {
  mkdirSync(join(root, 'in'));
  server = await startSftpServer({ root, user: 'feeder', password: 'pw-s3cret', publicKey: keys.public });
  base = `sftp://feeder@127.0.0.1:${server.port}`;
  // The server's key is known, as after `ssh-keyscan` and a check: every test but the host key ones.
  writeFileSync(knownHosts, `# test\n${server.knownHostsLine}\n`);
  process.env[REMOTE_ENV.sftpKnownHosts] = knownHosts;
  saved[REMOTE_ENV.sftpKnownHosts] = knownHosts;
});
afterAll(() => server.close());
afterEach(() => {
  for (const name of Object.values(REMOTE_ENV)) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

function put(name: string, content: string | Buffer, modified?: Date): void {
  const path = join(root, name);
  writeFileSync(path, content);
  if (modified) utimesSync(path, modified, modified);
}

describe('sftp sources', () => {
  it('reads a CSV by password, the password taken from the environment', async () => {
    process.env[REMOTE_ENV.sftpPassword] = 'pw-s3cret';
    put('in/feed.csv', 'sku;name\nA;Anvil\nB;Bolt\n');
    const source = await openSource(`${base}/in/feed.csv`);
    const rows = await collect(source);
    expect(rows.map(plain)).toEqual([
      { sku: 'A', name: 'Anvil' },
      { sku: 'B', name: 'Bolt' },
    ]);
    expect(source.format).toBe('csv');
    expect(source.source).toBe(`${base}/in/feed.csv`);
    expect(source.totalBytes).toBe(24);
  });

  it('logs in with a key file and checks the pinned host key', async () => {
    process.env[REMOTE_ENV.sftpKey] = keyFile;
    process.env[REMOTE_ENV.sftpHostKey] = server.hostFingerprint;
    put('in/key.ndjson', '{"sku":"K1"}\n{"sku":"K2"}\n');
    const rows = await collect(await openSource(`${base}/in/key.ndjson`));
    expect(rows.map(plain)).toEqual([{ sku: 'K1' }, { sku: 'K2' }]);

    process.env[REMOTE_ENV.sftpHostKey] = 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    const err = await expectCode(openSource(`${base}/in/key.ndjson`), 'SOURCE_UNREADABLE');
    expect(err.message).toContain(REMOTE_ENV.sftpHostKey);
    expect(err.message).toContain(server.hostFingerprint);
  });

  it('an unknown host key is refused, with the fingerprint to pin, as ssh does', async () => {
    process.env[REMOTE_ENV.sftpPassword] = 'pw-s3cret';
    put('in/hk.csv', 'sku\nH1\n');
    const empty = join(mkdtempSync(join(tmpdir(), 'sftp-known-')), 'known_hosts');
    writeFileSync(empty, '');
    process.env[REMOTE_ENV.sftpKnownHosts] = empty;
    const unknown = await expectCode(openSource(`${base}/in/hk.csv`), 'SOURCE_UNREADABLE');
    expect(unknown.message).toContain(`is not known: ${server.hostFingerprint} (ssh-ed25519)`);
    expect(unknown.message).toContain(`${REMOTE_ENV.sftpHostKey}=${server.hostFingerprint}`);
    expect(unknown.message).toContain(`ssh-keyscan -p ${server.port} 127.0.0.1`);
    expect(unknown.message).not.toContain('pw-s3cret');

    // Another key of the same type for this host: changed, refused.
    const other = generateKeyPair().public.split(' ')[1];
    writeFileSync(empty, `[127.0.0.1]:${server.port} ssh-ed25519 ${other}\n`);
    const changed = await expectCode(openSource(`${base}/in/hk.csv`), 'SOURCE_UNREADABLE');
    expect(changed.message).toContain(`does not match the one in ${empty} line 1`);

    // A hashed entry (HashKnownHosts yes) names the host without saying it.
    const salt = randomBytes(20);
    const hash = createHmac('sha1', salt).update(`[127.0.0.1]:${server.port}`).digest('base64');
    const [, type, key] = server.knownHostsLine.split(' ');
    writeFileSync(empty, `|1|${salt.toString('base64')}|${hash} ${type} ${key}\n`);
    expect((await collect(await openSource(`${base}/in/hk.csv`))).map(plain)).toEqual([{ sku: 'H1' }]);

    // A wildcard entry, negated for another host.
    writeFileSync(empty, `[127.0.0.*]:${server.port},!10.0.0.1 ${type} ${key}\n`);
    expect((await collect(await openSource(`${base}/in/hk.csv`))).map(plain)).toEqual([{ sku: 'H1' }]);
    // The key revoked: refused whatever else says.
    writeFileSync(empty, `${server.knownHostsLine}\n@revoked * ${type} ${key}\n`);
    const revoked = await expectCode(openSource(`${base}/in/hk.csv`), 'SOURCE_UNREADABLE');
    expect(revoked.message).toContain('is revoked');
  });

  it('reads an XLSX workbook (through a temporary copy: a zip needs random access)', async () => {
    process.env[REMOTE_ENV.sftpPassword] = 'pw-s3cret';
    const { readFileSync } = await import('node:fs');
    put('in/catalog.xlsx', readFileSync(join(import.meta.dirname, '../../samples/catalog.xlsx')));
    const source = await openSource(`${base}/in/catalog.xlsx`);
    const rows = await collect(source);
    expect(source.format).toBe('xlsx');
    expect(rows.length).toBeGreaterThan(0);
  });

  it('streams: closing after the first row leaves most of a large file unread', async () => {
    process.env[REMOTE_ENV.sftpPassword] = 'pw-s3cret';
    const line = `${'x'.repeat(90)},y\n`;
    put('in/large.csv', `a,b\n${line.repeat(100_000)}`); // 9.2 MB
    const before = server.bytesServed();
    const source = await openSource(`${base}/in/large.csv`);
    const first = await source.rows[Symbol.asyncIterator]().next();
    expect(first.done).toBe(false);
    await source.close();
    await new Promise((r) => setTimeout(r, 200));
    expect(server.bytesServed() - before).toBeLessThan(2_000_000);
  });

  it('a server that stops sending mid-file fails the read after --source-timeout, not never', async () => {
    process.env[REMOTE_ENV.sftpPassword] = 'pw-s3cret';
    const line = `${'x'.repeat(90)},y\n`;
    put('in/stalls.csv', `a,b\n${line.repeat(100_000)}`); // 9.2 MB
    const source = await openSource(`${base}/in/stalls.csv`, { timeoutMs: 500 });
    const rows = source.rows[Symbol.asyncIterator]();
    expect((await rows.next()).done).toBe(false);
    server.stallReads(true);
    try {
      const error = await (async () => {
        try {
          for (let r = await rows.next(); !r.done; r = await rows.next());
        } catch (err) {
          return err;
        }
        return undefined;
      })();
      expect(error).toMatchObject({ code: 'SOURCE_TIMEOUT' });
      expect((error as Error).message).toMatch(
        new RegExp(`^Cannot read ${base}/in/stalls\\.csv: no data for 0\\.5 s after \\d+ bytes`),
      );
    } finally {
      server.stallReads(false);
      await source.close();
    }
  });

  it('a file that changes while it is read (still being uploaded) ends with SOURCE_CHANGED', async () => {
    process.env[REMOTE_ENV.sftpPassword] = 'pw-s3cret';
    const line = `${'x'.repeat(90)},y\n`;
    put('in/growing.csv', `a,b\n${line.repeat(50_000)}`, new Date(Date.now() - 60_000));
    const source = await openSource(`${base}/in/growing.csv`);
    const rows = source.rows[Symbol.asyncIterator]();
    expect((await rows.next()).done).toBe(false);
    // The supplier's upload goes on.
    appendFileSync(join(root, 'in/growing.csv'), line.repeat(10));
    let read = 1;
    const error = await (async () => {
      try {
        for (let r = await rows.next(); !r.done; r = await rows.next()) read += 1;
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    await source.close();
    expect(error).toMatchObject({ code: 'SOURCE_CHANGED' });
    expect((error as Error).message).toMatch(/changed while it was read .*left in place for the next run/);
    expect(read).toBeGreaterThan(1);
  });

  it('takes the newest file matching a pattern and moves it to done/ (a clash gets a time stamp)', async () => {
    process.env[REMOTE_ENV.sftpPassword] = 'pw-s3cret';
    mkdirSync(join(root, 'drop'));
    put('drop/feed-1.csv', 'sku\nOLD\n', new Date('2026-01-01T00:00:00Z'));
    put('drop/feed-2.csv', 'sku\nNEW\n', new Date('2026-01-03T00:00:00Z'));
    put('drop/feed-3.csv', 'sku\nMIDDLE\n', new Date('2026-01-02T00:00:00Z'));
    put('drop/other.csv', 'sku\nNOT\n', new Date('2026-02-01T00:00:00Z'));

    const rows = await collect(await openSource(`${base}/drop/feed-*.csv`));
    expect(rows.map(plain)).toEqual([{ sku: 'NEW' }]);

    const resolved = await resolveRemote(`${base}/drop/feed-?.csv`);
    expect(resolved).toBe(`${base}/drop/feed-2.csv`);
    expect(await moveRemote(resolved, 'done')).toBe('/drop/done/feed-2.csv');
    expect(readdirSync(join(root, 'drop/done'))).toEqual(['feed-2.csv']);
    expect(await resolveRemote(`${base}/drop/feed-*.csv`)).toBe(`${base}/drop/feed-3.csv`);

    put('drop/feed-2.csv', 'sku\nAGAIN\n');
    const moved = await moveRemote(`${base}/drop/feed-2.csv`, 'done');
    expect(moved).toMatch(/^\/drop\/done\/feed-2\.\d{8}T\d{6}Z\.csv$/);
    expect(readdirSync(join(root, 'drop/done'))).toHaveLength(2);
    expect(existsSync(join(root, 'drop/feed-2.csv'))).toBe(false);
  });

  it('says what is wrong: no match, no file, no folder, wrong password, no credentials, a password in the URL', async () => {
    process.env[REMOTE_ENV.sftpPassword] = 'pw-s3cret';
    await expectCode(openSource(`${base}/in/nothing-*.csv`), 'SOURCE_NOT_FOUND');
    await expectCode(openSource(`${base}/in/missing.csv`), 'SOURCE_NOT_FOUND');
    await expectCode(openSource(`${base}/nowhere/feed-*.csv`), 'SOURCE_NOT_FOUND');

    process.env[REMOTE_ENV.sftpPassword] = 'wrong';
    const refused = await expectCode(openSource(`${base}/in/feed.csv`), 'SOURCE_UNREADABLE');
    expect(refused.message).toMatch(/Login refused/);
    expect(refused.message).not.toContain('wrong');

    delete process.env[REMOTE_ENV.sftpPassword];
    await expectCode(openSource(`${base}/in/feed.csv`), 'CONFIG_MISSING');

    const inUrl = await expectCode(
      openSource(`sftp://feeder:pw-s3cret@127.0.0.1:${server.port}/in/feed.csv`),
      'CONFIG_INVALID',
    );
    expect(inUrl.message).not.toContain('pw-s3cret');
    expect(inUrl.message).toContain(REMOTE_ENV.sftpPassword);
  });

  it('names a server that does not answer', async () => {
    process.env[REMOTE_ENV.sftpPassword] = 'pw-s3cret';
    const err = await expectCode(openSource('sftp://feeder@127.0.0.1:1/in/feed.csv'), 'SOURCE_UNREADABLE');
    expect(err.message).toMatch(
      /Cannot connect to sftp:\/\/feeder@127\.0\.0\.1:1\/in\/feed\.csv: ECONNREFUSED/,
    );
  });
});
