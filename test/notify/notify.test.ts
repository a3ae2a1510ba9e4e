// Notifications at a run's end, against a loopback HTTP server (webhook) and a real SMTP server.
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DELIVERY_HEADER,
  notifyRunEnd,
  parseNotifyOn,
  parseNotifyTarget,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
} from '../../src/notify/index.js';
import { sendMail } from '../../src/notify/mail.js';
import type { RunSummary } from '../../src/runner/summary-types.js';
import { type SmtpServer, startSmtpServer } from '../helpers/smtp-server.js';
import { expectCode, tempPath } from '../readers/helpers.js';

const failedRun: RunSummary = {
  runId: '20261125-020000-ab12',
  command: 'import',
  source: 'sftp://feeder@supplier.example/out/feed-20261125.csv',
  entity: 'products',
  tenant: '3f2a9c1d0b7e4a55',
  state: 'finished',
  exitCode: 1,
  outcomes: { created: 12, updated: 3, unchanged: 80, invalid: 4, failed: 1 },
  rows: 100,
  requests: { total: 9, byMethod: { GET: 3, POST: 4, PATCH: 2 } },
  startedAt: '2026-11-25T02:00:00.000Z',
  finishedAt: '2026-11-25T02:00:41.500Z',
  durationMs: 41_500,
  reportFile: 'report.csv',
  message: '5 rows were not imported: fix them in rejects.csv and run again',
};
const goodRun: RunSummary = {
  ...failedRun,
  exitCode: 0,
  outcomes: { created: 100 },
  message: 'All rows imported',
};

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}
let http: Server;
let hook = '';
const received: Received[] = [];
/** Statuses answered in turn before the 200s. */
let script: number[] = [];

let smtp: SmtpServer;

beforeAll(async () => {
  http = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(script.shift() ?? 200);
      res.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  hook = `http://127.0.0.1:${(http.address() as AddressInfo).port}/hooks/catalog`;
  smtp = await startSmtpServer({ user: 'ops', pass: 'smtp-pw' });
});
afterAll(async () => {
  await new Promise<void>((resolve) => http.close(() => resolve()));
  await smtp.close();
});

const fast = { baseDelayMs: 10 };

describe('webhook', () => {
  it('POSTs the summary, retried through 503s under one delivery id, signed with the secret', async () => {
    received.length = 0;
    script = [503, 502];
    const results = await notifyRunEnd(failedRun, {
      targets: [parseNotifyTarget(`webhook:${hook}`)],
      on: 'failure',
      settings: { webhookSecret: 'hook-secret' },
      webhook: fast,
    });
    expect(results).toEqual([{ target: expect.stringContaining('webhook'), ok: true }]);
    expect(received).toHaveLength(3);
    const delivered = received[2]!;
    expect(JSON.parse(delivered.body)).toEqual(failedRun);
    expect(new Set(received.map((r) => r.headers[DELIVERY_HEADER])).size).toBe(1);
    const timestamp = delivered.headers[TIMESTAMP_HEADER] as string;
    const expected = createHmac('sha256', 'hook-secret')
      .update(`${timestamp}.${delivered.body}`)
      .digest('hex');
    expect(delivered.headers[SIGNATURE_HEADER]).toBe(`sha256=${expected}`);
    expect(delivered.headers['content-type']).toBe('application/json');
  });

  it('is unsigned without a secret; a 4xx answer is final; an unreachable hook is a result, not a throw', async () => {
    received.length = 0;
    script = [410];
    const [gone] = await notifyRunEnd(failedRun, {
      targets: [parseNotifyTarget(`webhook:${hook}`)],
      on: 'always',
      settings: {},
      webhook: fast,
    });
    expect(gone).toMatchObject({ ok: false, error: expect.stringContaining('HTTP 410') });
    expect(received).toHaveLength(1);
    expect(received[0]!.headers[SIGNATURE_HEADER]).toBeUndefined();

    const [down] = await notifyRunEnd(failedRun, {
      targets: [parseNotifyTarget('webhook:http://127.0.0.1:1/hook?token=abc')],
      on: 'always',
      settings: {},
      webhook: { ...fast, attempts: 2 },
    });
    expect(down).toMatchObject({ ok: false, error: expect.stringContaining('ECONNREFUSED') });
    expect(down!.error).not.toContain('abc');
  });

  it('--notify-on failure stays quiet after a good run; always tells it', async () => {
    received.length = 0;
    const targets = [parseNotifyTarget(`webhook:${hook}`)];
    expect(await notifyRunEnd(goodRun, { targets, on: 'failure', settings: {}, webhook: fast })).toEqual([]);
    expect(received).toHaveLength(0);
    await notifyRunEnd(goodRun, { targets, on: 'always', settings: {}, webhook: fast });
    expect(received).toHaveLength(1);
  });
});

describe('mail', () => {
  it('sends the outcome in the subject, the summary in the body and as summary.json, the small report attached', async () => {
    const report = tempPath('report.csv');
    writeFileSync(report, 'location,outcome\nline 2,created\n');
    const results = await notifyRunEnd(failedRun, {
      targets: [parseNotifyTarget('mailto:ops@example.com,feeds@example.com')],
      on: 'failure',
      settings: { smtpUrl: `smtp://ops:smtp-pw@127.0.0.1:${smtp.port}`, mailFrom: 'catalog-io@example.com' },
      reportFile: report,
    });
    expect(results).toEqual([{ target: 'mail to ops@example.com, feeds@example.com', ok: true }]);
    const mail = await smtp.next();
    expect(mail.subject).toBe(
      'catalog-io import finished with failed rows: feed-20261125.csv (5 of 100 rows failed or invalid)',
    );
    expect(mail.from?.text).toBe('catalog-io@example.com');
    expect((Array.isArray(mail.to) ? mail.to[0] : mail.to)?.text).toBe('ops@example.com, feeds@example.com');
    expect(mail.text).toContain(failedRun.message);
    expect(mail.text).toContain('created 12 · updated 3 · unchanged 80 · invalid 4 · failed 1');
    expect(mail.text).toContain(`report:    ${report} (attached)`);
    const names = mail.attachments.map((a) => a.filename);
    expect(names).toEqual(['summary.json', 'report.csv']);
    expect(JSON.parse(mail.attachments[0]!.content.toString())).toEqual(failedRun);
    expect(mail.attachments[1]!.content.toString()).toBe('location,outcome\nline 2,created\n');
    expect(mail.text).not.toContain('smtp-pw');
  });

  it('names a report too large to attach; a refused login is a result, not a throw', async () => {
    const big = join(tempPath('big-report.csv'));
    writeFileSync(big, Buffer.alloc(6 * 1024 * 1024, 'x'));
    await notifyRunEnd(goodRun, {
      targets: [parseNotifyTarget('mailto:ops@example.com')],
      on: 'always',
      settings: { smtpUrl: `smtp://ops:smtp-pw@127.0.0.1:${smtp.port}` },
      reportFile: big,
    });
    const mail = await smtp.next();
    expect(mail.subject).toBe('catalog-io import succeeded: feed-20261125.csv (100 rows)');
    expect(mail.text).toContain('6.0 MB: too large to attach');
    expect(mail.attachments.map((a) => a.filename)).toEqual(['summary.json']);

    const [refused] = await notifyRunEnd(goodRun, {
      targets: [parseNotifyTarget('mailto:ops@example.com')],
      on: 'always',
      settings: { smtpUrl: `smtp://ops:wrong-pw@127.0.0.1:${smtp.port}` },
    });
    expect(refused).toMatchObject({ ok: false, error: expect.stringMatching(/not sent: SMTP 535/) });
    expect(refused!.error).not.toContain('wrong-pw');
  });

  it('a mail server that greets and then goes silent is given up on, not waited for ten minutes', async () => {
    const sockets: Socket[] = [];
    const silent = createTcpServer((socket) => {
      sockets.push(socket);
      // A greeting, then nothing: not an answer to EHLO, not a close.
      socket.write('220 mail.example.com ESMTP\r\n');
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as AddressInfo).port;
      const result = await sendMail(goodRun, {
        smtpUrl: `smtp://127.0.0.1:${port}`,
        to: ['ops@example.com'],
        timeoutMs: 300,
      });
      expect(result).toMatchObject({
        ok: false,
        error: expect.stringMatching(/^mail to ops@example.com not sent: /),
      });
      expect(sockets.length).toBeGreaterThan(0);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 20_000);
});

describe('flags', () => {
  it('refuses what is not a target or a policy', async () => {
    await expectCode(async () => parseNotifyTarget('slack:#ops'), 'CONFIG_INVALID');
    await expectCode(async () => parseNotifyTarget('webhook:ftp://x'), 'CONFIG_INVALID');
    await expectCode(async () => parseNotifyTarget('mailto:not-an-address'), 'CONFIG_INVALID');
    await expectCode(async () => parseNotifyOn('sometimes'), 'CONFIG_INVALID');
    expect(parseNotifyTarget('mailto:a@b.example')).toEqual({ kind: 'mail', to: ['a@b.example'] });
  });
});
