// Every numeric connection flag checked at the edge: nonsense is CONFIG_INVALID (exit 2) with a
// message that names the flag, says what was found and what the format is; nothing is contacted.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import { parseRateLimit, resolveSettings } from '../../src/config/config.js';
import { numberProblem, parseNumberFlag, parseSecondsFlag } from '../../src/config/numbers.js';
import { isCatalogIoError } from '../../src/errors.js';

// A catalog URL nobody listens on: a flag that slipped through would end in API_NETWORK, not CONFIG_INVALID.
const TENANT = ['--catalog-url', 'http://127.0.0.1:9/catalog', '--api-key', 'flags-test-key-0001'];

async function run(args: string[]): Promise<{ code: number; stderr: string }> {
  const out = memoryOutput();
  const code = await main(['validate', 'samples/products.csv', ...TENANT, ...args], out);
  return { code, stderr: out.stderr.join('\n') };
}

describe('numeric flags on the command line', () => {
  it.each([
    [['--rate-limit', '-5/10'], '--rate-limit', /REQUESTS\/SECONDS.*whole number from 1.*found "-5\/10"/],
    [['--rate-limit', 'abc'], '--rate-limit', /REQUESTS\/SECONDS \(e\.g\. 50\/10.*or off, found "abc"/],
    [['--rate-limit', '5/0'], '--rate-limit', /seconds must be above 0.*found "5\/0"/],
    [['--rate-limit', '2.5/10'], '--rate-limit', /whole number from 1 to 100000, found "2\.5\/10"/],
    [
      ['--concurrency', '0'],
      '--concurrency',
      /whole number from 1 to 64 \(requests in flight at once\), found 0/,
    ],
    [['--concurrency', 'abc'], '--concurrency', /whole number from 1 to 64 .*found "abc"/],
    [['--concurrency', '2.5'], '--concurrency', /found 2\.5/],
    [['--concurrency', '-3'], '--concurrency', /found -3/],
    [['--concurrency', '1', '--concurrency', '2'], '--concurrency', /given 2 times/],
    [['--timeout', '0'], '--timeout', /number from 100 to 3600000 \(ms for one try of a request\), found 0/],
    [['--timeout', '1e300'], '--timeout', /found 1e\+300/],
    [['--timeout', '0x10'], '--timeout', /found "0x10"/],
    [['--timeout='], '--timeout', /found ""/],
    [
      ['--retry-budget', '5'],
      '--retry-budget',
      /number from 1000 to 86400000 \(ms for all tries of a request\), found 5/,
    ],
    [['--retry-budget', 'NaN'], '--retry-budget', /found "NaN"/],
    [['--concurrency'], 'concurrency', /Not enough arguments following: concurrency/],
    [['--rate-limit'], 'rate-limit', /Not enough arguments following: rate-limit/],
  ])('%j: exit 2, CONFIG_INVALID naming the flag and the format', async (args, flag, message) => {
    const { code, stderr } = await run(args);
    expect(code).toBe(2);
    expect(stderr).toContain('[CONFIG_INVALID]');
    expect(stderr).toContain(flag);
    expect(stderr).toMatch(message);
    expect(stderr).not.toContain('flags-test-key-0001');
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});

describe('the same checks for the config file and library callers', () => {
  it('one table bounds flags and settings alike', () => {
    expect(numberProblem('concurrency', 8)).toBeUndefined();
    expect(numberProblem('concurrency', 65)).toMatch(/from 1 to 64/);
    expect(numberProblem('maxAttempts', 0)).toMatch(/from 1 to 20/);
    expect(numberProblem('timeoutMs', Number.POSITIVE_INFINITY)).toMatch(/found Infinity/);
    expect(parseNumberFlag('retryBudgetMs', '--retry-budget', ' 90000 ')).toBe(90_000);
    expect(parseNumberFlag('timeoutMs', '--timeout', '1.5e3')).toBe(1500);
  });

  it('a time flag also takes a duration with its unit', () => {
    expect(parseNumberFlag('timeoutMs', '--timeout', '30s')).toBe(30_000);
    expect(parseNumberFlag('timeoutMs', '--timeout', '750ms')).toBe(750);
    expect(parseNumberFlag('outageBudgetMs', '--outage-budget', '10m')).toBe(600_000);
    expect(parseNumberFlag('outageBudgetMs', '--outage-budget', '15min')).toBe(900_000);
    expect(parseNumberFlag('retryBudgetMs', '--retry-budget', '1.5h')).toBe(5_400_000);
    expect(parseNumberFlag('retryBudgetMs', '--retry-budget', '2 M')).toBe(120_000);
    // Bounds apply to the time it says; other units and signs are refused, saying what is read.
    expect(() => parseNumberFlag('timeoutMs', '--timeout', '2h')).toThrow(
      /--timeout must be a number from 100 to 3600000 \(ms for one try of a request\), found 7200000; a duration such as 30s, 10m or 2h is read too/,
    );
    expect(() => parseNumberFlag('timeoutMs', '--timeout', '3d')).toThrow(/found "3d"; a duration such as/);
    expect(() => parseNumberFlag('timeoutMs', '--timeout', '-30s')).toThrow(/found "-30s"/);
    // Flags counted in seconds (the job worker's) read a plain number as seconds.
    expect(parseSecondsFlag('--drain-timeout', '600', 0)).toBe(600);
    expect(parseSecondsFlag('--drain-timeout', '10m', 0)).toBe(600);
    expect(parseSecondsFlag('--stalled-after', '1500ms', 1)).toBe(1.5);
    expect(() => parseSecondsFlag('--stalled-after', '0.5', 1)).toThrow(
      /--stalled-after must be a number of seconds from 1 to 604800 \(or 90s, 10m, 1h\), found "0\.5"/,
    );
    expect(() => parseSecondsFlag('--drain-timeout', 'soon', 0)).toThrow(/found "soon"/);
    // A count is no time: no unit is read there.
    expect(() => parseNumberFlag('concurrency', '--concurrency', '8s')).toThrow(/found "8s"$/);
  });

  it('a config file with nonsense names the setting and the file', async () => {
    const cwd = await mkdtemp(path.join(tmpdir(), 'catalog-io-flags-'));
    try {
      for (const [content, message] of [
        [{ concurrency: 0 }, /concurrency in .*catalog-io\.config\.json must be a whole number from 1 to 64/],
        [{ retryBudgetMs: 10 }, /retryBudgetMs in .* must be a number from 1000/],
        [
          { rateLimit: { requests: -5, windowSeconds: 10 } },
          /rateLimit in .* the requests must be a whole number/,
        ],
      ] as const) {
        await writeFile(path.join(cwd, 'catalog-io.config.json'), JSON.stringify(content));
        let caught: unknown;
        try {
          resolveSettings({ cwd, env: {}, flags: { catalogUrl: 'http://127.0.0.1:9/catalog', apiKey: 'k' } });
        } catch (err) {
          caught = err;
        }
        expect(isCatalogIoError(caught, 'CONFIG_INVALID')).toBe(true);
        expect((caught as Error).message).toMatch(message);
      }
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });

  it('rate limits: the object form is checked like the text form', () => {
    expect(parseRateLimit('50/10', 'x')).toEqual({ requests: 50, windowSeconds: 10 });
    expect(parseRateLimit('off', 'x')).toBeNull();
    expect(() => parseRateLimit('-5/10', '--rate-limit')).toThrow(/the requests must be a whole number/);
    expect(() => parseRateLimit('50/10/3', '--rate-limit')).toThrow(/found "50\/10\/3"/);
    expect(() => parseRateLimit('5/100000', '--rate-limit')).toThrow(/at most 86400/);
  });
});
