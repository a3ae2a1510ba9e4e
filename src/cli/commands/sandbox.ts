// `catalog-io sandbox`: run the local simulator of the Catalog and DAM APIs until interrupted.
import type { CommandModule } from 'yargs';
import { numberFlag } from '../../config/flags.js';
import { CatalogIoError } from '../../errors.js';
import type { SandboxOptions } from '../../sandbox/index.js';
import { untilStopped } from '../until-stopped.js';
import type { CommandFactory } from './index.js';

interface SandboxArgs {
  port: number;
  host: string;
  seed: 'demo' | 'empty';
  'data-dir': string;
  reset: boolean;
  json: boolean;
  latency: number;
  'rate-limit'?: string;
  'fault-rate': number;
  'reset-rate': number;
  'processing-ms': number;
  'image-quota': number;
  'file-quota': number;
  'allow-host': string[];
  'dam-links': boolean;
  'remote-assets': 'live' | 'synthetic';
  'random-seed'?: number;
}

export function parseRateLimit(text: string): { requests: number; windowSeconds: number } {
  const match = /^\s*(\d+)\s*\/\s*(\d+(?:\.\d+)?)\s*s?\s*$/.exec(text);
  const requests = Number(match?.[1]);
  const windowSeconds = Number(match?.[2]);
  if (!match || requests < 1 || windowSeconds <= 0) {
    throw new CatalogIoError(
      'CONFIG_INVALID',
      `--rate-limit must look like REQUESTS/SECONDS, for example 50/10; got "${text}"`,
    );
  }
  return { requests, windowSeconds };
}

const whole = (max: number, unit: string) => ({ min: 0, max, whole: true, unit });
const probability = { min: 0, max: 1, whole: false, unit: 'a probability' };

export const sandboxCommand: CommandFactory = (out) =>
  ({
    command: 'sandbox',
    describe: 'Run the local sandbox tenant (Catalog API, DAM API and an asset host) until interrupted',
    builder: (y) =>
      y
        .option('port', {
          ...numberFlag('port', whole(65_535, 'a TCP port'), 'Port to listen on (0 = any free port)'),
          default: 4010,
        })
        .option('host', { type: 'string', default: '127.0.0.1', describe: 'Address to listen on' })
        .option('seed', {
          choices: ['demo', 'empty'] as const,
          default: 'demo' as const,
          describe: 'Starting tenant',
        })
        .option('data-dir', {
          type: 'string',
          default: '.catalog-io/sandbox',
          describe: 'Where the state is kept',
        })
        .option('reset', {
          type: 'boolean',
          default: false,
          describe: 'Ignore the saved state and start from the seed',
        })
        .option('json', {
          type: 'boolean',
          default: false,
          describe: 'Print one JSON line with the URLs and keys once listening',
        })
        .option('latency', {
          ...numberFlag('latency', whole(600_000, 'ms'), 'Added latency per request in ms (+-25% jitter)'),
          default: 0,
        })
        .option('rate-limit', {
          type: 'string',
          requiresArg: true,
          describe: 'Requests per window per key, e.g. 50/10 (the real service allows 50 per 10 s)',
        })
        .option('fault-rate', {
          ...numberFlag('fault-rate', probability, 'Probability of a random 500/502/503'),
          default: 0,
        })
        .option('reset-rate', {
          ...numberFlag('reset-rate', probability, 'Probability of a connection destroyed mid-request'),
          default: 0,
        })
        .option('processing-ms', {
          ...numberFlag('processing-ms', whole(600_000, 'ms'), 'Background image processing time'),
          default: 50,
        })
        .option('image-quota', {
          ...numberFlag('image-quota', whole(1_000_000_000, 'images'), 'Image library quota'),
          default: 10_000,
        })
        .option('file-quota', {
          ...numberFlag('file-quota', whole(1_000_000_000, 'files'), 'File library quota'),
          default: 10_000,
        })
        .option('allow-host', {
          type: 'string',
          array: true,
          default: [],
          describe: 'Loopback host:port the DAM may fetch from',
        })
        .option('dam-links', {
          type: 'boolean',
          default: false,
          describe: 'DAM collections carry @readLink/@nextLink',
        })
        .option('remote-assets', {
          choices: ['live', 'synthetic'] as const,
          default: 'live' as const,
          describe:
            'Asset URLs on other hosts: live = unreachable (500); synthetic = a small generated file of the named type (hosts dead.* and paths with /404/ answer 404)',
        })
        .option(
          'random-seed',
          numberFlag(
            'random-seed',
            whole(2 ** 32 - 1, 'any seed'),
            'Seed for faults and jitter, to repeat a run',
          ),
        ),
    handler: async (args: SandboxArgs) => {
      // An empty host would listen on every interface, with the well-known sandbox keys.
      if (args.host.trim() === '') {
        throw new CatalogIoError(
          'CONFIG_INVALID',
          '--host is empty: give an address to listen on (127.0.0.1 by default)',
        );
      }
      const options: SandboxOptions = {
        port: args.port,
        host: args.host,
        seed: args.seed,
        dataDir: args['data-dir'],
        reset: args.reset,
        latencyMs: args.latency,
        rateLimit: args['rate-limit'] ? parseRateLimit(args['rate-limit']) : undefined,
        faultRate: args['fault-rate'],
        resetRate: args['reset-rate'],
        processingMs: args['processing-ms'],
        imageQuota: args['image-quota'],
        fileQuota: args['file-quota'],
        allowHosts: args['allow-host'],
        damLinks: args['dam-links'],
        remoteAssets: args['remote-assets'],
        randomSeed: args['random-seed'],
      };
      // Loaded on use: the sandbox brings its image tools, which other commands do not need.
      const sandbox = await (await import('../../start-sandbox.js')).startSandboxSaying(
        options,
        (port) => `Port ${port} is already in use: pick another with --port (0 = any free port)`,
      );
      const { catalogUrl, damUrl, assetsUrl, apiKey, readOnlyKey } = sandbox;
      if (sandbox.notice) out.error(sandbox.notice);
      if (args.json) {
        out.print(JSON.stringify({ catalogUrl, damUrl, assetsUrl, apiKey, readOnlyKey }));
      } else {
        out.error(
          `Sandbox tenant (${sandbox.restored ? 'restored from' : `new, seed ${args.seed}, saved in`} ${args['data-dir']})`,
        );
        out.error(`  Catalog API  ${catalogUrl}`);
        out.error(`  DAM API      ${damUrl}`);
        out.error(`  Asset host   ${assetsUrl}`);
        out.error(`  Stats        ${sandbox.origin}/_sandbox/stats`);
        out.error(`  API key      ${apiKey}   (read-only: ${readOnlyKey})`);
        out.error('Press Ctrl+C to stop.');
      }
      await untilStopped();
      await sandbox.close();
    },
  }) as CommandModule<object, SandboxArgs>;
