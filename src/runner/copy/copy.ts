// `catalog-io copy`: one tenant's structure and catalog into another, in dependency order:
//   1. structure: the v2 attribute sets and the layouts (src/runner/structure/), checked against the
//      target's `$metadata` before anything is written;
//   2. assets: the source DAM's images and files registered in the target from their URLs (assets.ts);
//   3. each entity, parents first (categories, products, variants, custom entities): the export pipeline
//      writes it to an NDJSON file in the copy's folder (page by page, never the whole catalog in
//      memory), then the import pipeline imports that file into the target: looked up, diffed, and
//      written only where it differs, with its own journal, report and resume.
// Each step is recorded in `copy.json` once done, so `--resume` goes on from the step that was cut (an
// entity's import resumes its own run). `--since` exports only what the changelogs name after the last
// finished copy between the same two tenants.
import { statSync } from 'node:fs';
import { hostname } from 'node:os';
import type { CatalogClient } from '../../api/catalog.js';
import { type CountersSnapshot, countedFromNow } from '../../api/counters.js';
import type { DamClient } from '../../api/dam.js';
import { CatalogIoError, isCatalogIoError } from '../../errors.js';
import { holderWords } from '../../lock/held.js';
import type { HeldLock, LockHolder, RunLockStore } from '../../lock/types.js';
import type { EntityModel, TenantModel } from '../../schema/model.js';
import { openImportReport } from '../../writers/import-report.js';
import { exportCatalog } from '../export/export.js';
import { PlannedRecords } from '../import/planned.js';
import { importFile } from '../import/run.js';
import { EXIT_CODES, type ImportProgress, type ImportSummary, type RunStop } from '../import/types.js';
import { applyStructure } from '../structure/apply.js';
import { readAttributeSets, readLayouts } from '../structure/read.js';
import { reportLine } from '../structure/sheets.js';
import { copyAssets } from './assets.js';
import { CopyFolder, CopyMarks } from './manifest.js';

export interface CopySide {
  catalog: CatalogClient;
  dam: () => DamClient;
  model: TenantModel;
  /** The tenant's name (`host_port_catalog`): copies and `--since` marks are kept per pair of names. */
  name: string;
}

export interface CopyOptions {
  from: CopySide;
  to: CopySide & {
    /** The target as locks and run summaries name it (a hash of its URL and key id). */
    tenant: string;
    lockStore?: RunLockStore;
    counters?: () => CountersSnapshot;
  };
  /** The `.catalog-io` folder: copies, import runs, state. */
  stateDir: string;
  plan?: boolean;
  /** Only what changed since the last finished copy between these tenants. */
  since?: boolean;
  /** Go on with the last unfinished copy between these tenants (or the one named). */
  resume?: boolean | string;
  /** Writes in flight at once in each entity's import. Default 8. */
  concurrency?: number;
  stop?: RunStop;
  onStep?: (step: CopyStep) => void;
  /** An entity's import under way (for a progress bar). */
  onProgress?: (entity: string, progress: ImportProgress) => void;
}

export interface CopyStep {
  /** `structure`, `assets`, or an entity (`products`, `custom:Store Locations`). */
  step: string;
  rows: number;
  outcomes: Record<string, number>;
  /** The step's report: one line per set, layout, asset or record. */
  report?: string;
  /** The import run of an entity (its folder under .catalog-io/runs/). */
  runId?: string;
  /** Done by an earlier attempt of this copy (`--resume`): not run again. */
  skipped?: boolean;
  exitCode: number;
}

export interface CopyResult {
  copyId: string;
  dir: string;
  plan: boolean;
  steps: CopyStep[];
  /** Set when the copy stopped before its last step (a signal, or a step that stopped). */
  stopped?: string;
  exitCode: number;
  notes: string[];
}

/** The entities in the order a copy writes them: a record's parents and links come before it. */
export function copyOrder(model: TenantModel): EntityModel[] {
  const rank: Record<string, number> = { categories: 0, products: 1, variants: 2, custom: 3 };
  return [...model.entities].sort((a, b) => (rank[a.kind] ?? 3) - (rank[b.kind] ?? 3));
}

export async function copyTenant(options: CopyOptions): Promise<CopyResult> {
  const plan = options.plan === true;
  const lock = plan ? undefined : await lockCopy(options);
  try {
    return await copyLocked(options);
  } finally {
    await lock?.release();
  }
}

/**
 * One copy between two tenants at a time (a plan writes nothing to the target: it is not held back). A
 * second one, a `copy --resume` beside the copy it would go on with or a copy started twice, would export
 * to the same files and mark the same steps of the copy's folder while the first imports from them. Taken
 * before the folder is made or read; a copy whose lock is lost stops as an import does.
 */
async function lockCopy(options: CopyOptions): Promise<HeldLock | undefined> {
  const store = options.to.lockStore;
  if (!store) return undefined;
  const scope = { tenant: options.to.tenant, entity: `copy from ${options.from.name}` };
  const holder: LockHolder = {
    runId: `copy-${process.pid}`,
    pid: process.pid,
    host: hostname(),
    startedAt: new Date().toISOString(),
  };
  const stop = options.stop;
  let lock: HeldLock;
  try {
    lock = await store.acquire(scope, holder, { stopped: () => stop?.signal !== undefined });
  } catch (err) {
    if (!isCatalogIoError(err, 'LOCKED')) throw err;
    const held = err.details.holder as LockHolder | undefined;
    throw new CatalogIoError(
      'LOCKED',
      `Another copy from ${options.from.name} to this tenant is running: ${holderWords(held)}. Try again when it ends`,
      { holder: held, scope, copy: true },
    );
  }
  lock.lost.catch(() => {
    if (stop) stop.lockLost = true;
  });
  return lock;
}

async function copyLocked(options: CopyOptions): Promise<CopyResult> {
  const { from, to } = options;
  const plan = options.plan === true;
  const folder = options.resume
    ? CopyFolder.resume(
        options.stateDir,
        from.name,
        to.name,
        typeof options.resume === 'string' ? options.resume : undefined,
      )
    : CopyFolder.create(options.stateDir, from.name, to.name, { plan, since: options.since === true });
  const resumed = options.resume !== undefined && options.resume !== false;
  const marks = new CopyMarks(options.stateDir, from.name, to.name);
  const previous = folder.manifest.since ? marks.read() : {};
  const steps: CopyStep[] = [];
  const notes: string[] = [];
  // A plan carries what each step would write to the steps after it (a product in a category the
  // categories step would create, an asset the assets step would register).
  const planned = plan ? new PlannedRecords(to.model.baseLanguage) : undefined;
  const done = (step: CopyStep) => {
    steps.push(step);
    options.onStep?.(step);
  };
  const stopped = () => options.stop?.signal !== undefined || options.stop?.lockLost === true;
  try {
    // 1. Structure.
    if (folder.step('structure') === 'done') done(skippedStep('structure'));
    else {
      const layouts = await readLayouts(from.catalog, from.model);
      // The layout of an entity the target does not have goes with that entity's records: not copied.
      for (const l of layouts)
        if (!to.model.entity(l.target))
          notes.push(`layout of ${l.target}: the target tenant has no such entity`);
      const structure = {
        attributeSets: await readAttributeSets(from.catalog),
        layouts: layouts.filter((l) => to.model.entity(l.target)),
      };
      const results = await applyStructure(structure, { catalog: to.catalog, model: to.model, plan });
      for (const r of results)
        if (r.outcome === 'would-create' && r.entity === 'attribute-sets') planned?.attributeSets.add(r.ref);
      const report = folder.file('structure.report.csv');
      const writer = await openImportReport(report);
      for (const r of results) await writer.write(reportLine(r));
      await writer.close();
      const outcomes = count(results.map((r) => r.outcome));
      done({
        step: 'structure',
        rows: results.length,
        outcomes,
        report,
        exitCode: outcomes.failed ? EXIT_CODES.rowsFailed : EXIT_CODES.ok,
      });
      folder.mark('structure', 'done');
    }

    // 2. Assets.
    if (!stopped()) {
      if (folder.step('assets') === 'done') done(skippedStep('assets'));
      else {
        const report = folder.file('assets.report.csv');
        const writer = await openImportReport(report);
        let result: Awaited<ReturnType<typeof copyAssets>>;
        try {
          result = await copyAssets(from.dam(), to.dam(), {
            plan,
            ...(previous.assets && { since: previous.assets }),
            report: writer,
            stopped,
            ...(planned && { wouldRegister: (kind, name) => planned.wouldRegister(kind, name) }),
          });
        } finally {
          // The lines written before a fatal error stay readable.
          await writer.close();
        }
        const outcomes = result.outcomes as Record<string, number>;
        // A failed line keeps the mark where it was: the next --since copy tries that asset again.
        if (result.newest && !outcomes.failed) folder.manifest.marks.assets = result.newest;
        else keepMark(folder, previous, 'assets');
        done({
          step: 'assets',
          rows: Object.values(outcomes).reduce((n, v) => n + v, 0),
          outcomes,
          report,
          exitCode: outcomes.failed ? EXIT_CODES.rowsFailed : EXIT_CODES.ok,
        });
        if (!stopped()) folder.mark('assets', 'done');
      }
    }

    // 3. Records, parents first.
    for (const entity of copyOrder(from.model)) {
      if (stopped()) break;
      if (!to.model.entity(entity.name)) {
        notes.push(`${entity.name}: the target tenant has no such entity; not copied`);
        continue;
      }
      if (folder.step(entity.name) === 'done') {
        done(skippedStep(entity.name));
        continue;
      }
      const file = folder.file(`${fileName(entity.name)}.ndjson`);
      if (folder.step(entity.name) === 'pending') {
        await exportCatalog({
          catalog: from.catalog,
          model: from.model,
          tenant: from.name,
          entities: [entity.name],
          out: file,
          format: 'ndjson',
          ...(folder.manifest.since && { since: 'last' as const }),
          history: {
            last: (name) => (previous[name] ? new Date(previous[name]) : undefined),
            record: (name, at) => {
              folder.manifest.marks[name] = at.toISOString();
            },
          },
        });
        folder.mark(entity.name, 'exported');
      }
      if (statSync(file).size === 0) {
        // Nothing changed since the last copy: nothing to import.
        done({ step: entity.name, rows: 0, outcomes: {}, exitCode: EXIT_CODES.ok });
        folder.mark(entity.name, 'done');
        continue;
      }
      const summary = await importEntity(options, entity, file, folder, resumed, planned);
      done({
        step: entity.name,
        rows: summary.rows,
        outcomes: Object.fromEntries(Object.entries(summary.outcomes).filter(([, n]) => n > 0)),
        report: folder.file(`${fileName(entity.name)}.report.csv`),
        runId: summary.runId,
        exitCode: summary.exitCode,
      });
      if (summary.stopped) break;
      // A failed or invalid row keeps the entity's mark where it was: the next --since copy brings it.
      if (summary.outcomes.failed || summary.outcomes.invalid) keepMark(folder, previous, entity.name);
      folder.mark(entity.name, 'done');
    }
  } finally {
    planned?.close();
  }
  const last = steps[steps.length - 1];
  const cut = options.stop?.signal ?? (last && last.exitCode > EXIT_CODES.rowsFailed ? last.step : undefined);
  const complete =
    !cut && copyOrder(from.model).every((e) => !to.model.entity(e.name) || folder.step(e.name) === 'done');
  if (complete) {
    folder.finish();
    // A plan moves nothing: the next --since starts where the last real copy did.
    if (!plan) marks.write({ ...previous, ...folder.manifest.marks });
  }
  return {
    copyId: folder.manifest.id,
    dir: folder.dir,
    plan,
    steps,
    ...(cut && { stopped: cut }),
    exitCode: steps.reduce<number>((worst, s) => Math.max(worst, s.exitCode), EXIT_CODES.ok),
    notes,
  };
}

/** One entity's file into the target through the import pipeline (resuming its run after a crash). */
async function importEntity(
  options: CopyOptions,
  entity: EntityModel,
  file: string,
  folder: CopyFolder,
  resumed: boolean,
  planned: PlannedRecords | undefined,
): Promise<ImportSummary> {
  const { to } = options;
  const run = (resume: boolean) =>
    importFile(
      {
        source: file,
        // Values as the source holds them: the import's default trim would write a ref or a text with
        // spaces at its ends trimmed (and a ref so would name another record than the source's).
        profile: { entity: entity.name, trim: false },
        exactText: true,
        model: to.model,
        catalog: to.catalog,
        dam: to.dam,
        plan: options.plan === true,
        stateDir: options.stateDir,
        tenant: to.tenant,
        ...(to.lockStore && { lockStore: to.lockStore }),
        ...(resume && { resume: true }),
        reportFile: folder.file(`${fileName(entity.name)}.report.csv`),
        concurrency: options.concurrency ?? 8,
        ...(options.stop && { stop: options.stop }),
        // The step's own requests: the connection counts the whole copy's.
        ...(to.counters && { counters: countedFromNow(to.counters) }),
        ...(options.onProgress && { onProgress: (p: ImportProgress) => options.onProgress!(entity.name, p) }),
      },
      planned,
    );
  // A bare resume starts a new run when there is none to continue (the cut came before this entity's import).
  return run(resumed && options.plan !== true);
}

function keepMark(folder: CopyFolder, previous: Record<string, string>, name: string): void {
  if (previous[name]) folder.manifest.marks[name] = previous[name];
  else delete folder.manifest.marks[name];
}

function skippedStep(step: string): CopyStep {
  return { step, rows: 0, outcomes: {}, skipped: true, exitCode: EXIT_CODES.ok };
}

function count(outcomes: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const o of outcomes) out[o] = (out[o] ?? 0) + 1;
  return out;
}

/** `custom:Store Locations` -> `custom-Store Locations` (a file name). */
function fileName(entity: string): string {
  return entity.replace(/[:\\/?*[\]]/g, '-');
}
