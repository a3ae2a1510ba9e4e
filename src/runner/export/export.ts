// The export pipeline: for each entity, plan its columns, read it page by page in every language
// (the whole catalog, or the items a changelog names), turn each record into a row and hand it to the
// format's sink. Nothing beyond a page or two is held in memory, at any catalog size.
import type { CatalogClient } from '../../api/catalog.js';
import type { FilterValue } from '../../api/filter.js';
import { CatalogIoError } from '../../errors.js';
import type { EntityModel, TenantModel } from '../../schema/model.js';
import type {
  ColumnKind,
  CsvOptions,
  EntityTableWriter,
  ExportColumn,
  ExportSink,
  ExportValue,
} from '../../writers/export/index.js';
import { planTable, resolveLanguages, type TablePlan } from './columns.js';
import { allPages, type BasePage, type MergedRecord, mergeCultures, pagesOfIds, readAhead } from './pages.js';
import { RefCache } from './refs.js';
import { changedIds, changelogMark, ExportHistory } from './since.js';
import { type ExportFormat, type ExportTarget, openSink, resolveTarget } from './target.js';

/** The legacy attribute-set list, exported as read-only reference data. */
export const ATTRIBUTE_SETS = 'attribute-sets';

/** The legacy attribute-set list's page size under `$skip` (spec, Limits). */
const LEGACY_PAGE_SIZE = 100;

export interface ExportOptions {
  catalog: CatalogClient;
  model: TenantModel;
  /** Tenant name, for the export history (`.catalog-io/exports/<tenant>.json`). */
  tenant: string;
  /** `products`, `variants`, `categories`, `custom:<denominator>`, `attribute-sets`; none: all of them. */
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
  const entities = names.map((name) => (name === ATTRIBUTE_SETS ? name : model.entity(name)!));
  const plans = new Map<string, TablePlan>();
  const selects = selectsByEntity(model, entities, options.select);
  for (const entity of entities) {
    if (typeof entity === 'string') continue;
    const select = selects.get(entity.name);
    plans.set(entity.name, planTable(entity, model, { languages, ...(select && { select }) }));
  }
  const target: ExportTarget = resolveTarget(options.out, options.format, names.length);
  const history = new ExportHistory(options.cwd ?? process.cwd(), options.tenant);
  const notes: string[] = [];
  if (options.filter && names.length > 1) {
    notes.push(`--filter applies to every entity exported: ${names.join(', ')}`);
  }

  const sink = timed(openSink(target, options.csv ?? {}));
  const results: EntityExport[] = [];
  /** entity -> where its next `--since last` starts. */
  const marks = new Map<string, Date>();
  try {
    for (const entity of entities) {
      if (typeof entity === 'string') {
        results.push(await exportAttributeSets(catalog, model, sink, options, notes));
        continue;
      }
      marks.set(entity.name, (await changelogMark(catalog, entity)) ?? startedAt);
      results.push(
        await exportEntity(catalog, model, plans.get(entity.name)!, sink, options, history, notes),
      );
    }
  } catch (err) {
    // A failed run leaves no truncated file behind; the first error is the one told.
    await sink.abort().catch(() => undefined);
    throw err;
  }
  await sink.close();
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
    return [...model.entities.map((e) => e.name), ATTRIBUTE_SETS];
  }
  const out: string[] = [];
  for (const name of wanted) {
    const known = name === ATTRIBUTE_SETS ? name : model.entity(name)?.name;
    if (!known) {
      throw new CatalogIoError(
        'SCHEMA_UNKNOWN_ENTITY',
        `Cannot export "${name}": this tenant has ${[...model.entities.map((e) => e.name), ATTRIBUTE_SETS].join(', ')}`,
      );
    }
    if (!out.includes(known)) out.push(known);
  }
  return out;
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
  history: ExportHistory,
  notes: string[],
): Promise<EntityExport> {
  const { entity } = plan;
  const base = model.baseLanguage;
  const report = (phase: ExportProgress['phase'], rows: number, total?: number) =>
    options.onProgress?.({ entity: entity.name, phase, rows, ...(total !== undefined && { total }) });

  let since = options.since;
  let full = false;
  if (since === 'last') {
    since = history.last(entity.name);
    if (!since) {
      full = true;
      notes.push(`${entity.name}: no earlier export recorded for --since last: everything was exported`);
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
  const table = await sink.table(entity.name, plan.columns);
  let rows = 0;
  for await (const page of readAhead(pages)) {
    const [records] = await Promise.all([
      mergeCultures(catalog, plan, page),
      ...plan.refLinks.map((link) =>
        refCaches.get(link.target)!.load(page.items.flatMap((item) => idsOf(item[link.idField]))),
      ),
    ]);
    for (const record of records) {
      await table.writeRow(rowValues(plan, record, refCaches));
      rows += 1;
    }
    report('rows', rows, page.count);
  }
  await table.close();
  return {
    entity: entity.name,
    rows,
    ...(since instanceof Date && { since: since.toISOString() }),
    ...(full && { full }),
  };
}

/** One row of values aligned with the plan's columns. */
export function rowValues(
  plan: TablePlan,
  record: MergedRecord,
  refCaches: Map<string, RefCache>,
): ExportValue[] {
  return plan.columns.map((column) => {
    const source = column.source;
    if (source.kind === 'ref') {
      const cache = refCaches.get(source.target)!;
      const refs = idsOf(record.base[source.idField])
        .map((id) => cache.ref(id))
        .filter((ref): ref is string => ref !== undefined && ref !== '');
      return source.multiple ? refs : (refs[0] ?? null);
    }
    const from = source.culture ? record.cultures.get(source.culture) : record.base;
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

/** The legacy `/AttributeSets` list as its own read-only table; columns from the records themselves. */
async function exportAttributeSets(
  catalog: CatalogClient,
  model: TenantModel,
  sink: TimedSink,
  options: ExportOptions,
  notes: string[],
): Promise<EntityExport> {
  if (options.since) notes.push(`${ATTRIBUTE_SETS}: has no changelog; exported in full`);
  // Attribute sets are few: held in one list. The legacy list pages by `$skip` alone (100 a page);
  // with `$top` or `$skipToken` its pages hold a single item.
  const records: Array<Record<string, unknown>> = [];
  for (;;) {
    const body = await catalog.get<{ value?: Array<Record<string, unknown>> | null; '@count'?: number }>(
      '/AttributeSets',
      { culture: model.baseLanguage, query: records.length > 0 ? { $skip: records.length } : {} },
    );
    const page = Array.isArray(body?.value) ? body.value : [];
    records.push(...page);
    const count = body?.['@count'];
    if (page.length < LEGACY_PAGE_SIZE || (typeof count === 'number' && records.length >= count)) break;
  }
  const columns = attributeSetColumns(records);
  const table: EntityTableWriter = await sink.table(ATTRIBUTE_SETS, columns);
  for (const record of records) {
    await table.writeRow(columns.map((c) => exportValue(record[c.header])));
  }
  await table.close();
  options.onProgress?.({
    entity: ATTRIBUTE_SETS,
    phase: 'rows',
    rows: records.length,
    total: records.length,
  });
  return { entity: ATTRIBUTE_SETS, rows: records.length };
}

function attributeSetColumns(records: Array<Record<string, unknown>>): ExportColumn[] {
  const kinds = new Map<string, ColumnKind>();
  for (const record of records) {
    for (const [key, value] of Object.entries(record)) {
      if (kinds.get(key) && value === null) continue;
      kinds.set(key, kindOfValue(value, kinds.get(key)));
    }
  }
  if (kinds.size === 0) kinds.set('typ_id', 'integer');
  return [...kinds].map(([header, kind]) => ({ header, kind }));
}

function kindOfValue(value: unknown, known: ColumnKind | undefined): ColumnKind {
  if (typeof value === 'number') return Number.isInteger(value) && known !== 'number' ? 'integer' : 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (value === null || value === undefined) return known ?? 'text';
  return 'text';
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
