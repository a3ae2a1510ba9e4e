// `catalog-io copy --from a.json --to b.json`: one tenant's structure and catalog into another. Thin:
// two connections (each with its own rate limit and counters), copyTenant(), one line per step on
// stderr (or one JSON object on stdout). Each side comes from its config file, and the side's flags
// (`--from-catalog-url`, `--to-rate-limit`, ...) override it; the environment is not read for either
// side, so a CATALOG_URL meant for other commands never picks the wrong tenant.
import path from 'node:path';
import type { Argv, CommandModule, Options } from 'yargs';
import { type Connection, numberFlag } from '../../config/index.js';
import { NUMBER_SETTINGS } from '../../config/numbers.js';
import { CatalogIoError, isCatalogIoError } from '../../errors.js';
import type { CopyResult, CopyStep } from '../../runner/copy/copy.js';
import { EXIT_CODES, type RunStop } from '../../runner/import/types.js';
import { tenantHash } from '../../runs/source-identity.js';
import { connectTelling, paceSummaryWords } from '../outage-notice.js';
import { EXIT, type Output, printJsonEnd } from '../output.js';
import { createProgress, type Progress, type Wait } from '../progress.js';
import { watchStopSignals } from '../stop-signals.js';
import type { CommandFactory } from './index.js';

interface CopyArgs {
  from?: string;
  to?: string;
  plan: boolean;
  since: boolean;
  resume?: string;
  json: boolean;
  quiet: boolean;
  [key: string]: unknown;
}

const SIDE_FLAGS = ['catalog-url', 'dam-url', 'api-key', 'rate-limit'] as const;

function sideOptions(side: 'from' | 'to'): Record<string, Options> {
  const what = side === 'from' ? 'source' : 'target';
  return {
    [side]: {
      type: 'string',
      describe: `Config file of the ${what} tenant (catalogUrl, damUrl, apiKey, rateLimit...)`,
    },
    [`${side}-catalog-url`]: { type: 'string', describe: `Catalog API base URL of the ${what}` },
    [`${side}-dam-url`]: { type: 'string', describe: `DAM API base URL of the ${what}` },
    [`${side}-api-key`]: { type: 'string', describe: `API key of the ${what} (prefer the config file)` },
    [`${side}-rate-limit`]: {
      type: 'string',
      requiresArg: true,
      describe: `Requests per window to the ${what}, REQUESTS/SECONDS or off (default 50/10)`,
    },
    [`${side}-concurrency`]: numberFlag(
      `${side}-concurrency`,
      NUMBER_SETTINGS.concurrency,
      `Requests in flight at once to the ${what}, 1-64 (default 8)`,
    ),
  };
}

export const copyCommand: CommandFactory = (out, setExitCode) =>
  ({
    command: 'copy',
    describe:
      "Copy a tenant's attribute sets, layouts, categories, products, variants, custom entities and assets into another",
    builder: (y: Argv) =>
      y
        .options(sideOptions('from'))
        .options(sideOptions('to'))
        .option('plan', { type: 'boolean', default: false, describe: 'Compare and report; write nothing' })
        .option('since', {
          type: 'boolean',
          default: false,
          describe: 'Only what the changelogs name since the last finished copy between these tenants',
        })
        .option('resume', {
          type: 'string',
          describe: 'Go on with the last unfinished copy between these tenants (or the copy named)',
        })
        .option('json', { type: 'boolean', default: false, describe: 'Print the result as one JSON object' })
        .option('quiet', { type: 'boolean', default: false, describe: 'No line per step' }),
    handler: async (args: CopyArgs) => {
      let progress: Progress | undefined;
      // The services waited for now, each side's: the step's progress line says so while they are.
      const waits: { from: readonly Wait[]; to: readonly Wait[] } = { from: [], to: [] };
      const waitingNow = () => [...waits.from, ...waits.to];
      const from = await connectSide('from', args, out, (now) => {
        waits.from = now;
        progress?.waiting(waitingNow());
      });
      let to: Connection;
      try {
        to = await connectSide('to', args, out, (now) => {
          waits.to = now;
          progress?.waiting(waitingNow());
        });
      } catch (err) {
        await from.close();
        throw err;
      }
      const stop: RunStop = {};
      let current = '';
      // As an import stops (stop-signals.ts): the step under way ends `interrupted` with its report, and
      // `copy --resume` goes on from it. The target's requests are the ones cut.
      const unwatchSignals = watchStopSignals({
        stop,
        interrupt: (grace) => to.transport.interrupt(grace),
        say: (line) => out.error(line),
        quiet: () => progress?.stop(),
        hint: () => ' (copy --resume goes on)',
      });
      try {
        if (from.tenant.name === to.tenant.name && from.tenant.keyId === to.tenant.keyId) {
          throw new CatalogIoError('CONFIG_INVALID', '--from and --to name the same tenant: nothing to copy');
        }
        const stateDir = path.join(process.cwd(), '.catalog-io');
        const { copyTenant } = await import('../../runner/copy/copy.js');
        const { FileLockStore } = await import('../../lock/file.js');
        const result = await copyTenant({
          from: {
            catalog: from.catalog,
            dam: () => from.dam,
            model: await from.tenant.model(),
            name: from.tenant.name,
          },
          to: {
            catalog: to.catalog,
            dam: () => to.dam,
            model: await to.tenant.model(),
            name: to.tenant.name,
            tenant: tenantHash(to.tenant.catalogUrl, to.tenant.keyId),
            // The target's lock, in this machine's lock folder as an import's.
            lockStore: new FileLockStore(to.lockDir),
            counters: () => to.snapshot(),
          },
          stateDir,
          plan: args.plan,
          since: args.since,
          ...(args.resume !== undefined && { resume: args.resume === '' ? true : args.resume }),
          stop,
          onStep: (step) => {
            progress?.stop();
            progress = undefined;
            if (!args.quiet && !args.json) out.error(stepLine(step, args.plan));
          },
          onProgress: (entity, p) => {
            if (entity !== current) {
              progress?.stop();
              current = entity;
              progress = createProgress(out, `copy ${entity}`, { quiet: args.quiet || args.json });
              progress.waiting(waitingNow());
            }
            progress?.update({
              done: p.rows,
              rowsRead: p.rowsRead,
              bytesRead: p.bytesRead,
              ...(p.totalBytes !== undefined && { totalBytes: p.totalBytes }),
              ...(p.requests && { requests: p.requests.requests, rateLimited: p.requests.rateLimited }),
            });
          },
        });
        printResult(out, result, from, to, args);
        setExitCode(result.exitCode === EXIT_CODES.ok ? EXIT.OK : result.exitCode);
      } catch (err) {
        // Another copy between these tenants, or another import of an entity into the target, is running:
        // as the import says it (a step cut by an import's lock goes on with copy --resume).
        if (!isCatalogIoError(err, 'LOCKED')) throw err;
        const message =
          err.details.copy === true
            ? err.message
            : `${err.message}; copy --resume goes on once it has finished`;
        out.error(`catalog-io: ${message} [LOCKED]`);
        if (args.json) printJsonEnd(out, { code: 'LOCKED', message, exitCode: EXIT_CODES.locked });
        setExitCode(EXIT_CODES.locked);
      } finally {
        progress?.stop();
        unwatchSignals();
        await from.close();
        await to.close();
      }
    },
  }) as unknown as CommandModule<object, CopyArgs>;

const SIDE_NAMES = { from: 'source', to: 'target' } as const;

async function connectSide(
  side: 'from' | 'to',
  args: CopyArgs,
  out: Output,
  waiting: (waits: readonly Wait[]) => void,
): Promise<Connection> {
  const flag = (name: (typeof SIDE_FLAGS)[number]) => args[`${side}-${name}`] as string | undefined;
  const concurrency = args[`${side}-concurrency`] as number | undefined;
  const config = args[side];
  if (config === undefined && flag('catalog-url') === undefined) {
    throw new CatalogIoError(
      'CONFIG_MISSING',
      `copy needs the ${side === 'from' ? 'source' : 'target'} tenant: --${side} FILE (a config file) or --${side}-catalog-url with --${side}-dam-url and --${side}-api-key`,
    );
  }
  const name = SIDE_NAMES[side];
  return connectTelling(
    out,
    {
      // Without a file of its own, a side does not fall back to the nearest catalog-io.config.json.
      ...(config !== undefined ? { config } : { noConfigFile: true }),
      ...(flag('catalog-url') && { catalogUrl: flag('catalog-url') }),
      ...(flag('dam-url') && { damUrl: flag('dam-url') }),
      ...(flag('api-key') && { apiKey: flag('api-key') }),
      ...(flag('rate-limit') && { rateLimit: flag('rate-limit') }),
      ...(concurrency !== undefined && { concurrency }),
    },
    {
      waiting,
      side: name,
      pastBudget: 'then the copy stops and copy --resume goes on',
      sayGone: true,
      // A copy reads no environment; its errors name the side's own flags and file.
      connect: {
        env: {},
        names: { flagPrefix: `${side}-`, readsEnvironment: false, configFile: `the --${side} file` },
      },
    },
  );
}

function stepLine(step: CopyStep, plan: boolean): string {
  if (step.skipped) return `${step.step}: done by the earlier attempt`;
  const counts = Object.entries(step.outcomes)
    .filter(([, n]) => n > 0)
    .map(([o, n]) => `${o} ${n}`)
    .join(', ');
  return `${step.step}: ${step.rows} ${plan ? 'planned' : 'copied'}${counts ? ` (${counts})` : ''}${step.report ? ` — report ${step.report}` : ''}`;
}

function printResult(
  out: Output,
  result: CopyResult,
  from: Connection,
  to: Connection,
  args: CopyArgs,
): void {
  const requests = (c: Connection) => {
    const s = c.snapshot();
    return {
      total: s.requests,
      byMethod: s.byMethod,
      rateLimited: s.rateLimited,
      ...(s.pace && { pace: s.pace }),
    };
  };
  if (args.json) {
    out.print(
      JSON.stringify({
        copyId: result.copyId,
        dir: result.dir,
        plan: result.plan,
        steps: result.steps,
        ...(result.stopped && { stopped: result.stopped }),
        exitCode: result.exitCode,
        requests: { from: requests(from), to: requests(to) },
        notes: result.notes,
      }),
    );
    return;
  }
  const line = (name: string, c: Connection) => {
    const r = requests(c);
    const methods = Object.entries(r.byMethod)
      .map(([m, n]) => `${m} ${n}`)
      .join(', ');
    const pace = paceSummaryWords(r.pace);
    return `${name}: ${r.total} requests (${methods || 'none'})${pace ? `, pace ${pace}` : ''}`;
  };
  out.error(`${line('source', from)}; ${line('target', to)}`);
  if (result.stopped)
    out.error(
      `stopped (${result.stopped}): run the same command with --resume to go on (copy ${result.copyId})`,
    );
  for (const note of result.notes) out.error(`note: ${note}`);
}
