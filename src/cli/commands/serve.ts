// `catalog-io serve [--port 4020] [--host 127.0.0.1] [--token T] [--redis URL]`: the web console over
// this folder's runs (src/console/). Loopback by default; bound elsewhere it needs a token.
import type { CommandModule } from 'yargs';
import { connectionFlagsFrom, connectionOptions, numberFlag } from '../../config/flags.js';
import { CatalogIoError } from '../../errors.js';
import { parseSize } from '../../readers/index.js';
import { checkRedisUrl } from '../../redis/url.js';
import { untilStopped } from '../until-stopped.js';
import type { CommandFactory } from './index.js';

interface ServeArgs {
  port: number;
  host: string;
  token?: string;
  redis?: string;
  'max-upload': string;
  'max-report': string;
  'max-checks-disk': string;
  origin?: string[];
  json: boolean;
  [key: string]: unknown;
}

export const serveCommand: CommandFactory = (out) =>
  ({
    command: 'serve',
    describe: 'A web console over the runs of this folder: history, reports, plans, checking a file, jobs',
    builder: (y) =>
      y
        .option('port', {
          ...numberFlag(
            'port',
            { min: 0, max: 65_535, whole: true, unit: 'a TCP port' },
            'Port (0 = any free port)',
          ),
          default: 4020,
        })
        .option('host', {
          type: 'string',
          default: '127.0.0.1',
          describe: 'Address to listen on; anything but loopback needs --token',
        })
        .option('token', {
          type: 'string',
          describe: 'Token the console asks for (env CATALOG_IO_CONSOLE_TOKEN; prefer the environment)',
        })
        .option('redis', {
          type: 'string',
          describe: 'Redis of the job queue: its jobs and schedules under /jobs (env CATALOG_IO_REDIS)',
        })
        .option('max-upload', {
          type: 'string',
          default: '1GB',
          describe: 'Largest file "Check a file" accepts (e.g. 200MB)',
        })
        .option('max-report', {
          type: 'string',
          default: '1GB',
          describe: 'Largest report one "Check a file" may write; past it the check stops and its files go',
        })
        .option('max-checks-disk', {
          type: 'string',
          default: '4GB',
          describe: 'Disk the checks kept and running may hold together; the oldest kept go first',
        })
        .option('origin', {
          type: 'string',
          array: true,
          describe:
            "Another origin whose pages may write (POST), e.g. a TLS proxy's https://catalog.example.com; the console's own is http:// and the Host asked for",
        })
        .option('json', {
          type: 'boolean',
          default: false,
          describe: 'Print one JSON line with the URL once listening',
        })
        .options(connectionOptions)
        .example('$0 serve', 'the console on http://127.0.0.1:4020')
        .example('CATALOG_IO_CONSOLE_TOKEN=... $0 serve --host 0.0.0.0', 'reachable from other machines'),
    handler: async (args: ServeArgs) => {
      const token = args.token ?? (process.env.CATALOG_IO_CONSOLE_TOKEN || undefined);
      const redisEnv = process.env.CATALOG_IO_REDIS || undefined;
      const redisUrl = args.redis
        ? checkRedisUrl(args.redis, '--redis')
        : redisEnv && checkRedisUrl(redisEnv, 'CATALOG_IO_REDIS');
      const { startConsole } = await import('../../console/server.js');
      const path = await import('node:path');
      let served: Awaited<ReturnType<typeof startConsole>>;
      try {
        served = await startConsole({
          stateDir: path.join(process.cwd(), '.catalog-io'),
          host: args.host,
          port: args.port,
          ...(token !== undefined && { token }),
          ...(redisUrl && { redisUrl }),
          flags: connectionFlagsFrom({ ...args, redis: undefined }),
          maxUploadBytes: parseSize(args['max-upload'], '--max-upload'),
          maxReportBytes: parseSize(args['max-report'], '--max-report'),
          maxChecksBytes: parseSize(args['max-checks-disk'], '--max-checks-disk'),
          ...(args.origin && { origins: args.origin }),
        });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE')
          throw new CatalogIoError(
            'CONFIG_INVALID',
            `Port ${args.port} is already in use: pick another with --port (0 = any free port)`,
          );
        throw err;
      }
      if (args.json) out.print(JSON.stringify({ url: served.url, jobs: redisUrl !== undefined }));
      else {
        out.error(
          `catalog-io console: ${served.url}${token ? '  (open it once as /?token=<your token>)' : ''}`,
        );
        if (redisUrl) out.error(`  jobs: ${served.url}/jobs`);
        out.error('Press Ctrl+C to stop.');
      }
      await untilStopped();
      // Checks running stop at their next row; whatever still waits (a tenant's answer) does not keep
      // the process past a few seconds.
      setTimeout(() => process.exit(process.exitCode ?? 0), 5_000).unref();
      await served.close();
    },
  }) as CommandModule<object, ServeArgs>;
