// The export pipeline: for each entity, plan its columns, read it page by page in every language
// (the whole catalog, or the items a changelog names), turn each record into a row and hand it to the
// format's sink. Nothing beyond a page or two is held in memory, at any catalog size.
import type { CatalogClient } from '../../api/catalog.js';
import type { DamClient } from '../../api/dam.js';
import type { FilterValue } from '../../api/filter.js';
import { CatalogIoError } from '../../errors.js';
import type { EntityModel, TenantModel } from '../../schema/model.js';
import type { CsvOptions, ExportSink, ExportValue } from '../../writers/export/index.js';
import { readAttributeSets } from '../structure/read.js';
import { ATTRIBUTE_SETS_TABLE, type AttributeSetDoc, LAYOUTS_TABLE } from '../structure/types.js';
import { AssetUrls, assetNames } from './asset-urls.js';
import { planTable, resolveLanguages, type TablePlan } from './columns.js';
import { allPages, type BasePage, type MergedRecord, mergeCultures, pagesOfIds, readAhead } from './pages.js';
import { RefCache } from './refs.js';
import { changedIds, changelogMark, ExportHistory } from './since.js';
import { attributeSetNames, exportAttributeSetTable, exportLayoutTable } from './structure.js';
import { type ExportFormat, type ExportTarget, openSink, resolveTarget } from './target.js';

/** The v2 attribute sets, with their product and variant layouts. */
export const ATTRIBUTE_SETS = ATTRIBUTE_SETS_TABLE;
/** The category and custom-entity layouts, one JSON document a row. */
export const LAYOUTS = LAYOUTS_TABLE;
/** Tables that are tenant structure, not records. */
const STRUCTURE_TABLES = [ATTRIBUTE_SETS, LAYOUTS];

export interface ExportOptions {
  catalog: CatalogClient;
  model: TenantModel;
  /** Tenant name, for the export history (`.catalog-io/exports/<tenant>.json`). */
  tenant: string;
  /** `products`, `variants`, `categories`, `custom:<denominator>`, `attribute-sets`, `layouts`; none: all of them. */
  entities?: string[];
  out: string;
  format?: string;
  languages?: string[] | 'all';
  /** OData `$filter` ANDed to every read of every entity named. */
  filter?: string;
  /** Field names to export (the id and ref fields always are). */
  select?: string[];
  /** Only items changed after this moment, or after the last export of the same entity. */
  since?: Date | 'last';
  csv?: CsvOptions;
  /** Where `.catalog-io/` lives. Default: the current directory. */
  cwd?: string;
  /** Image and file cells as the DAM's `originalUrl` (needs `dam`), for a workbook meant for another tenant. */
  assetUrls?: boolean;
  dam?: DamClient;
  /** Where `--since last` reads and records its moments; default: the export history of `tenant`. */
  history?: { last(entity: string): Date | undefined; record(entity: string, at: Date): void };
  onProgress?: (progress: ExportProgress) => void;
  /** The clock (tests). */
  now?: () => Date;
}

export interface ExportProgress {
  entity: string;
  phase: 'changelog' | 'rows';
  rows: number;
  /** Rows expected (`@count`, or the changed items), when known. */
  total?: number;
}

export interface EntityExport {
  entity: string;
  rows: number;
  /** The moment `--since` resolved to; absent for a full export. */
  since?: string;
  /** Set when `--since last` found no earlier export and everything was exported. */
  full?: boolean;
}

export interface ExportResult {
  format: ExportFormat;
  files: string[];
  entities: EntityExport[];
  startedAt: string;
  durationMs: number;
  /** Time spent inside the sink (formatting and writing), ms: what the benchmark reports. */
  sinkMs: number;
  notes: string[];
}

export async function exportCatalog(options: ExportOptions): Promise<ExportResult> {
  const now = options.now ?? (() => new Date());
  const startedAt = now();
  const { model, catalog } = options;
  const names = entityNames(model, options.entities);
  const languages = resolveLanguages(model, options.languages);
  const entities = names.map((name) => (STRUCTURE_TABLES.includes(name) ? name : model.entity(name)!));
  const plans = new Map<string, TablePlan>();
  const selects = selectsByEntity(model, entities, options.select);
  for (const entity of entities) {
    if (typeof entity === 'string') continue;
    const select = selects.get(entity.name);
    plans.set(entity.name, planTable(entity, model, { languages, ...(select && { select }) }));
  }
  const target: ExportTarget = resolveTarget(options.out, options.format, names.length);
  const history = options.history ?? new ExportHistory(options.cwd ?? process.cwd(), options.tenant);
  const notes: string[] = [];
  if (options.filter && names.length > 1) {
    notes.push(`--filter applies to every entity exported: ${names.join(', ')}`);
  }

  const sink = timed(openSink(target, options.csv ?? {}));
  // The attribute sets are read once, for the `attribute-sets` table and every `typ_name` column alike.
  let sets: Promise<AttributeSetDoc[]> | undefined;
  const attributeSets = () => {
    sets ??= readAttributeSets(catalog);
    return sets;
  };
  const results: EntityExport[] = [];
  /** entity -> where its next `--since last` starts. */
  const marks = new Map<string, Date>();
  try {
    for (const entity of entities) {
      if (typeof entity === 'string') {
        if (options.since) notes.push(`${entity}: has no changelog; exported in full`);
        const rows =
          entity === ATTRIBUTE_SETS
            ? await exportAttributeSetTable(await attributeSets(), sink)
            : await exportLayoutTable(catalog, model, sink);
        options.onProgress?.({ entity, phase: 'rows', rows, total: rows });
        results.push({ entity, rows });
        continue;
      }
      marks.set(markKey(entity.name, options), (await changelogMark(catalog, entity)) ?? startedAt);
      results.push(
        await exportEntity(
          catalog,
          model,
          plans.get(entity.name)!,
          sink,
          options,
          history,
          notes,
          attributeSets,
        ),
      );
    }
  } catch (err) {
    // A failed run leaves no truncated file behind; the first error is the one told.
    await sink.abort().catch(() => undefined);
    throw err;
  }
  await sink.close();
  notes.push(...(sink.notes ?? []));
  for (const [entity, mark] of marks) history.record(entity, mark);
  return {
    format: target.format,
    files: [...sink.files],
    entities: results,
    startedAt: startedAt.toISOString(),
    durationMs: now().getTime() - startedAt.getTime(),
    sinkMs: Math.round(sink.elapsedMs()),
    notes,
  };
}

/** The entity names asked for, checked against the tenant; none named: every entity and the attribute sets. */
export function entityNames(model: TenantModel, wanted: string[] | undefined): string[] {
  if (!wanted || wanted.length === 0) {
    return [...model.entities.map((e) => e.name), ...STRUCTURE_TABLES];
  }
  const out: string[] = [];
  for (const name of wanted) {
    const known = STRUCTURE_TABLES.includes(name) ? name : model.entity(name)?.name;
    if (!known) {
      throw new CatalogIoError(
        'SCHEMA_UNKNOWN_ENTITY',
        `Cannot export "${name}": this tenant has ${[...model.entities.map((e) => e.name), ...STRUCTURE_TABLES].join(', ')}`,
      );
    }
    if (!out.includes(known)) out.push(known);
  }
  return out;
}

/**
 * Where an entity's `--since last` mark is kept: an export with `--filter`, `--select` or `--languages`
 * keeps its own, so an ad-hoc filtered export neither moves the full export's mark (whose next run would
 * then miss what the filter left out) nor starts from it; a nightly run with the same flags finds its own.
 */
export function markKey(
  entity: string,
  options: Pick<ExportOptions, 'filter' | 'select' | 'languages'>,
): string {
  const parts = [entity];
  if (options.filter) parts.push(`--filter ${options.filter}`);
  if (options.select) parts.push(`--select ${[...options.select].sort().join(',')}`);
  if (options.languages) {
    const languages = options.languages === 'all' ? 'all' : [...options.languages].sort().join(',');
    parts.push(`--languages ${languages}`);
  }
  return parts.join(' ');
}

/** `--select` names go to the entities that have them; a name no exported entity has is an error. */
function selectsByEntity(
  model: TenantModel,
  entities: Array<EntityModel | string>,
  select: string[] | undefined,
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (!select) return out;
  const models = entities.filter((e): e is EntityModel => typeof e !== 'string');
  for (const entity of models) out.set(entity.name, []);
  for (const name of select) {
    const owners = models.filter((e) => {
      try {
        planTable(e, model, { languages: [model.baseLanguage], select: [name] });
        return true;
      } catch {
        return false;
      }
    });
    if (owners.length === 0) {
      throw new CatalogIoError(
        'CONFIG_INVALID',
        `--select ${name}: no exported entity has this field (${models.map((e) => e.name).join(', ')})`,
      );
    }
    for (const owner of owners) out.get(owner.name)!.push(name);
  }
  return out;
}

async function exportEntity(
  catalog: CatalogClient,
  model: TenantModel,
  plan: TablePlan,
  sink: TimedSink,
  options: ExportOptions,
  history: NonNullable<ExportOptions['history']>,
  notes: string[],
  attributeSets: () => Promise<AttributeSetDoc[]>,
): Promise<EntityExport> {
  const { entity } = plan;
  const base = model.baseLanguage;
  const report = (phase: ExportProgress['phase'], rows: number, total?: number) =>
    options.onProgress?.({ entity: entity.name, phase, rows, ...(total !== undefined && { total }) });

  let since = options.since;
  let full = false;
  if (since === 'last') {
    const key = markKey(entity.name, options);
    since = history.last(key);
    if (!since) {
      full = true;
      notes.push(`${key}: no earlier export recorded for --since last: everything was exported`);
    }
  }
  let pages: AsyncIterable<BasePage>;
  if (since instanceof Date) {
    report('changelog', 0);
    const ids: FilterValue[] = await changedIds(catalog, entity, since);
    pages = pagesOfIds(catalog, plan, base, ids, options.filter);
  } else {
    pages = allPages(catalog, plan, base, options.filter);
  }

  const refCaches = new Map<string, RefCache>();
  for (const link of plan.refLinks) {
    if (!refCaches.has(link.target))
      refCaches.set(link.target, new RefCache(catalog, model.entity(link.target)!, base));
  }
  const lookups: RowLookups = {
    refCaches,
    ...(plan.columns.some((c) => c.source.kind === 'setName') && {
      setNames: attributeSetNames(await attributeSets()),
    }),
  };
  const assetFields = options.assetUrls ? entity.fields.filter((f) => f.asset) : [];
  if (assetFields.length > 0) {
    if (!options.dam) throw new CatalogIoError('CONFIG_MISSING', '--asset-urls needs the DAM: set DAM_URL');
    lookups.assets = new AssetUrls(options.dam);
    lookups.assetKinds = new Map(assetFields.map((f) => [f.name, f.asset!]));
  }
  const table = await sink.table(entity.name, plan.columns);
  let rows = 0;
  for await (const page of readAhead(pages)) {
    const [records] = await Promise.all([
      mergeCultures(catalog, plan, page),
      ...plan.refLinks.map((link) =>
        refCaches.get(link.target)!.load(page.items.flatMap((item) => idsOf(item[link.idField]))),
      ),
    ]);
    if (lookups.assets) await loadAssetUrls(lookups.assets, assetFields, records);
    for (const record of records) {
      await table.writeRow(rowValues(plan, record, lookups));
      rows += 1;
    }
    report('rows', rows, page.count);
  }
  await table.close();
  const kept = lookups.assets?.keptAsNames;
  if (kept && kept.size > 0) {
    notes.push(
      `${entity.name}: ${[...kept].slice(0, 5).join(', ')}${kept.size > 5 ? ', ...' : ''} kept as DAM names: the DAM gives no URL ending in that name`,
    );
  }
  return {
    entity: entity.name,
    rows,
    ...(since instanceof Date && { since: since.toISOString() }),
    ...(full && { full }),
  };
}

/** What a row's derived cells are looked up in: refs of links, attribute-set names, asset URLs. */
export interface RowLookups {
  refCaches: Map<string, RefCache>;
  setNames?: Map<number, string>;
  assets?: AssetUrls;
  /** Asset field -> its kind, when cells carry URLs. */
  assetKinds?: Map<string, 'image' | 'file'>;
}

async function loadAssetUrls(
  assets: AssetUrls,
  fields: ReadonlyArray<{ name: string; asset?: 'image' | 'file' }>,
  records: MergedRecord[],
): Promise<void> {
  for (const kind of ['image', 'file'] as const) {
    const names = new Set<string>();
    for (const field of fields) {
      if (field.asset !== kind) continue;
      for (const record of records) {
        for (const from of [record.base, ...record.cultures.values()])
          for (const name of assetNames(from[field.name])) names.add(name);
      }
    }
    await assets.load(kind, names);
  }
}

/** One row of values aligned with the plan's columns. */
export function rowValues(plan: TablePlan, record: MergedRecord, lookups: RowLookups): ExportValue[] {
  const { refCaches } = lookups;
  return plan.columns.map((column) => {
    const source = column.source;
    if (source.kind === 'setName') {
      const id = record.base[source.idField];
      return typeof id === 'number' ? (lookups.setNames?.get(id) ?? null) : null;
    }
    if (source.kind === 'ref') {
      const cache = refCaches.get(source.target)!;
      const refs = idsOf(record.base[source.idField])
        .map((id) => cache.ref(id))
        .filter((ref): ref is string => ref !== undefined && ref !== '');
      return source.multiple ? refs : (refs[0] ?? null);
    }
    const from = source.culture ? record.cultures.get(source.culture) : record.base;
    const kind = lookups.assetKinds?.get(source.field);
    if (kind && lookups.assets) return exportValue(withUrls(from?.[source.field], kind, lookups.assets));
    return exportValue(from?.[source.field]);
  });
}

function idsOf(value: unknown): unknown[] {
  if (value === null || value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** An API value as a cell: scalars and lists of scalars as they are, anything else as JSON text. */
function exportValue(value: unknown): ExportValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number')) {
    return value as Array<string | number>;
  }
  return JSON.stringify(value);
}

/** An asset field's value with each DAM name as its URL. */
function withUrls(value: unknown, kind: 'image' | 'file', assets: AssetUrls): unknown {
  if (typeof value === 'string') return value === '' ? value : assets.url(kind, value);
  if (Array.isArray(value)) return value.map((v) => withUrls(v, kind, assets));
  return value;
}

/** A sink that measures the time spent inside it (the XLSX writer's share of an export). */
interface TimedSink extends ExportSink {
  elapsedMs(): number;
}

function timed(sink: ExportSink): TimedSink {
  let elapsed = 0;
  const measure = async <T>(work: () => Promise<T>): Promise<T> => {
    const start = performance.now();
    try {
      return await work();
    } finally {
      elapsed += performance.now() - start;
    }
  };
  return {
    get files() {
      return sink.files;
    },
    get notes() {
      return sink.notes;
    },
    async table(name, columns) {
      const table = await measure(() => sink.table(name, columns));
      return {
        writeRow: (values) => measure(() => table.writeRow(values)),
        close: () => measure(() => table.close()),
      };
    },
    close: () => measure(() => sink.close()),
    abort: () => sink.abort(),
    elapsedMs: () => elapsed,
  };
}
