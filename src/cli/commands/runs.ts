// `catalog-io runs [--json]`: the recent import runs of this folder (id, source, started, state,
// outcome counts). `catalog-io runs report <id> --out FILE`: a run's report written from its journal
// (CSV, JSON Lines or XLSX), e.g. the XLSX report of a run that was killed.
import path from 'node:path';
import type { Argv } from 'yargs';
import { CatalogIoError } from '../../errors.js';
import { journalReportLines, readJournal } from '../../runs/journal.js';
import { type RunMeta, RunRegistry } from '../../runs/registry.js';
import { writeImportReport } from '../../writers/import-report.js';
import type { CommandFactory } from './index.js';

interface RunsArgs {
  action?: string;
  id?: string;
  json: boolean;
  out?: string;
}

export const runsCommand: CommandFactory = (out, setExitCode) => ({
  command: 'runs [action] [id]',
  describe:
    "List recent import runs (state, counts), or write a run's report from its journal (report <id> --out FILE)",
  builder: (yargs: Argv) =>
    yargs
      .positional('action', { choices: ['list', 'report'] as const, describe: 'list (default) or report' })
      .positional('id', { type: 'string', describe: 'report: the run id (see catalog-io runs)' })
      .option('json', { type: 'boolean', default: false, describe: 'One JSON array on stdout' })
      .option('out', { type: 'string', describe: 'report: the file to write (.csv, .jsonl or .xlsx)' })
      .example('$0 runs', 'the recent runs')
      .example('$0 runs report 20260101-020000123-a1b2c3 --out night.xlsx', "a run's report"),
  handler: async (argv: Record<string, unknown>) => {
    const args = argv as unknown as RunsArgs;
    const registry = new RunRegistry(path.join(process.cwd(), '.catalog-io'));
    if (args.action === 'report') {
      if (!args.id || !args.out)
        throw new CatalogIoError('CONFIG_INVALID', 'runs report needs a run id and --out FILE');
      if (!(await registry.read(args.id)))
        throw new CatalogIoError(
          'CONFIG_INVALID',
          `No run ${args.id} in ${registry.root} (catalog-io runs lists them)`,
        );
      await writeImportReport(args.out, journalReportLines(registry.journalFile(args.id)));
      out.error(`report of run ${args.id}: ${args.out}`);
      // --json: every ending says itself on stdout, this one too.
      if (args.json) out.print(JSON.stringify({ runId: args.id, report: args.out }));
      setExitCode(0);
      return;
    }
    const runs = await registry.list();
    const rows = [];
    for (const run of runs) rows.push({ ...pick(run), outcomes: await countsOf(registry, run) });
    if (args.json) out.print(JSON.stringify(rows));
    else if (rows.length === 0) out.error(`No runs in ${registry.root}`);
    else {
      for (const r of rows) {
        const counts = Object.entries(r.outcomes)
          .map(([o, n]) => `${o} ${n}`)
          .join(' · ');
        out.print(`${r.runId}  ${r.state.padEnd(11)}  ${r.startedAt}  ${r.source}  ${counts}`);
      }
    }
    setExitCode(0);
  },
});

function pick(run: RunMeta) {
  return {
    runId: run.runId,
    source: run.source,
    entity: run.entity,
    startedAt: run.startedAt,
    state: run.state,
    pid: run.pid,
    host: run.host,
    ...(run.reportFile && { reportFile: run.reportFile }),
  };
}

/** From summary.json when the run ended; counted from the journal when it did not (running, crashed). */
async function countsOf(registry: RunRegistry, run: RunMeta): Promise<Record<string, number>> {
  const summary = await registry.summary(run.runId);
  if (summary && run.state !== 'running' && run.state !== 'crashed') return summary.outcomes;
  const counts: Record<string, number> = {};
  try {
    for await (const record of readJournal(registry.journalFile(run.runId))) {
      if (record.t === 'row' || record.t === 'na' || record.t === 'extra')
        counts[record.line.outcome] = (counts[record.line.outcome] ?? 0) + 1;
    }
  } catch {
    // No journal yet: the run had not started its first row.
  }
  return counts;
}
