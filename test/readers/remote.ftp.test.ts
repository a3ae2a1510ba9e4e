// ftp:// and ftps:// sources against a real FTP server on loopback (ftp-srv): reading, the newest
// match of a pattern (dates by MDTM: the listing's are not parsed), the move to done/, FTPS.
import { mkdirSync, mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openSource } from '../../src/readers/index.js';
import { moveRemote, REMOTE_ENV, resolveRemote } from '../../src/readers/remote/index.js';
import { type FtpServer, startFtpServer } from '../helpers/ftp-server.js';
import { collect, expectCode, plain } from './helpers.js';

const root = mkdtempSync(join(tmpdir(), 'ftp-root-'));
let ftp: FtpServer;
let ftps: FtpServer;
const saved = { ...process.env };

beforeAll(async () => {
  mkdirSync(join(root, 'in'));
  ftp = await startFtpServer({ root, user: 'feeder', password: 'ftp-s3cret' });
  ftps = await startFtpServer({ root, user: 'feeder', password: 'ftp-s3cret', tls: true });
});
afterAll(async () => {
  await ftp.close();
  await ftps.close();
});
afterEach(() => {
  for (const name of Object.values(REMOTE_ENV)) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

function put(name: string, content: string, modified?: Date): void {
  const path = join(root, name);
  writeFileSync(path, content);
  if (modified) utimesSync(path, modified, modified);
}

describe('ftp sources', () => {
  it('reads a CSV with the password from the environment', async () => {
    process.env[REMOTE_ENV.ftpPassword] = 'ftp-s3cret';
    put('in/feed.csv', 'sku,price\nA,1.50\nB,2\n');
    const source = await openSource(`ftp://feeder@127.0.0.1:${ftp.port}/in/feed.csv`);
    expect((await collect(source)).map(plain)).toEqual([
      { sku: 'A', price: '1.50' },
      { sku: 'B', price: '2' },
    ]);
    expect(source.totalBytes).toBe(21);
  });

  it('takes the newest match and moves it to done/', async () => {
    process.env[REMOTE_ENV.ftpPassword] = 'ftp-s3cret';
    mkdirSync(join(root, 'drop'));
    put('drop/feed-a.csv', 'sku\nOLD\n', new Date('2026-01-01T00:00:00Z'));
    put('drop/feed-b.csv', 'sku\nNEW\n', new Date('2026-03-01T00:00:00Z'));
    put('drop/feed-c.csv', 'sku\nMID\n', new Date('2026-02-01T00:00:00Z'));
    const base = `ftp://feeder@127.0.0.1:${ftp.port}`;
    expect((await collect(await openSource(`${base}/drop/feed-*.csv`))).map(plain)).toEqual([{ sku: 'NEW' }]);
    const resolved = await resolveRemote(`${base}/drop/feed-*.csv`);
    expect(resolved).toBe(`${base}/drop/feed-b.csv`);
    expect(await moveRemote(resolved, 'done')).toBe('/drop/done/feed-b.csv');
    expect(readdirSync(join(root, 'drop')).sort()).toEqual(['done', 'feed-a.csv', 'feed-c.csv']);
    expect(readdirSync(join(root, 'drop/done'))).toEqual(['feed-b.csv']);
  });

  it('says what is wrong: a refused login, a missing file, no match', async () => {
    const base = `ftp://feeder@127.0.0.1:${ftp.port}`;
    process.env[REMOTE_ENV.ftpPassword] = 'not-it';
    const refused = await expectCode(openSource(`${base}/in/feed.csv`), 'SOURCE_UNREADABLE');
    expect(refused.message).toMatch(/Login refused/);
    process.env[REMOTE_ENV.ftpPassword] = 'ftp-s3cret';
    await expectCode(openSource(`${base}/in/none.csv`), 'SOURCE_NOT_FOUND');
    await expectCode(openSource(`${base}/in/none-*.csv`), 'SOURCE_NOT_FOUND');
  });

  it('reads over explicit FTPS, trusting the certificate given in the environment', async () => {
    process.env[REMOTE_ENV.ftpPassword] = 'ftp-s3cret';
    put('in/secure.csv', 'sku\nS1\nS2\n');
    const url = `ftps://feeder@127.0.0.1:${ftps.port}/in/secure.csv`;
    // A self-signed certificate is refused until it is trusted.
    await expectCode(openSource(url), 'SOURCE_UNREADABLE');
    process.env[REMOTE_ENV.ftpsCa] = ftps.certFile;
    expect((await collect(await openSource(url))).map(plain)).toEqual([{ sku: 'S1' }, { sku: 'S2' }]);
  });
});
