// Validate on several cores: a large local CSV file is cut into parts on record boundaries (split.ts),
// and worker threads (part-worker.ts) check the parts with the same reader, mapper, checker and row loop
// as a run on one thread. This thread checks its own share the same way (PartChecker), whenever it would
// otherwise wait for a thread's result. It keeps the order: it answers each part's duplicate-check questions
// against the whole file's refs, writes the parts' report and rejects text in the file's order, and adds
// their counts up. The report, the rejects and the summary are the same as on one thread, byte for byte:
// a part whose rows hold a duplicate is checked again here (rare), with the answers the file gives; a
// row that names an image or file (whose check follows the whole file), a lone CR line break or a record
// longer than the reader's limit makes this thread read the rest of the file itself.
import { closeSync, createReadStream, openSync, readSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { CatalogIoError, type ErrorCode } from '../../errors.js';
import {
  emptyRowCounter,
  mergeShortRows,
  readCsvPart,
  rowLengthNotes,
  type ShortRows,
} from '../../readers/csv/csv.js';
import { decode } from '../../readers/encoding.js';
import type { OpenedSource } from '../../readers/open.js';
import { maxRowBytes, type ReaderOptions, resolveOptions } from '../../readers/options.js';
import type { SourceRow } from '../../readers/types.js';
import { type DecodeStatus, decodeUtf8Part } from '../../readers/utf8-part.js';
import { modelData } from '../../schema/build.js';
import { registeredSecrets } from '../../secrets.js';
import { AssetCheck } from '../asset-check.js';
import { RowChecker } from '../check.js';
import { checkRows, emptySummary, type ValidateRowsOptions, type ValidateSummary } from '../validate-rows.js';
import { PartChecker, pieces } from './part-check.js';
import type { PartResult, PartThreadInput } from './protocol.js';
import { type DataStart, dataStart, FileParts, type Part, SlotPool } from './split.js';
import { PARTS_PER_THREAD, partMessage, ThreadPool } from './thread-pool.js';

/**
 * `auto` (the default) checks in parts only where two threads measured faster than one on a 2-core
 * machine (docs/benchmarks.md): a file of about AUTO_FROM_ROWS rows or more whose head quotes no cell.
 * A shorter file is done before a second thread has paid for its start (its own code to load and
 * compile, its own warm-up); a file with quoted cells costs this thread a scan of every quote to find
 * where records end. `on` splits any file, `off` none.
 */
const DEFAULT_MODE = 'auto';
/** `auto` splits files of about this many rows and more (told from the file's size and its head's lines). */
const AUTO_FROM_ROWS = 1_000_000;
/** `auto` looks for quotes, and counts lines, in this much of the file's head. */
const HEAD_PROBE_BYTES = 64 << 10;
/**
 * Small parts keep memory low (a part's rows, report text and strings live at once) at no cost in speed:
 * at 2M rows, parts of 128 KB peaked 13 to 35 MB lower than parts of 256 KB on every shape, in about the
 * same time (docs/benchmarks.md).
 */
const PART_BYTES = 128 << 10;
/** A part thread gets this many parts for each one this thread checks. */
const MAIN_SHARE = 1;
/**
 * The same once the file's refs came out of order: this thread then probes its duplicate table for every
 * row of every part (a cache miss each), so it keeps fewer parts for itself.
 */
const MAIN_SHARE_OUT_OF_ORDER = 2;

/**
 * The part threads, started before the source is opened when it may be checked in parts (a local file
 * of some size, named .csv, no reference check): they load their code while this thread opens the file
 * and reads the header. `partsPlan` decides; threads not needed are stopped.
 */
export function startPartThreads(spec: string, references: boolean): ThreadPool | undefined {
  const mode = process.env.CATALOG_IO_VALIDATE_PARTS ?? DEFAULT_MODE;
  if (mode === 'off' || references) return undefined;
  if (spec === '-' || /^[a-z][a-z0-9+.-]*:\/\//i.test(spec) || !/\.(csv|txt|tsv)$/i.test(spec))
    return undefined;
  let size: number;
  try {
    size = statSync(spec).size;
  } catch {
    return undefined;
  }
  if (!wantsParts(mode, size, () => fileHead(spec))) return undefined;
  const threads = threadCount();
  // `CATALOG_IO_VALIDATE_THREADS=0` asks for parts checked on this thread alone.
  if (threads < 1 && process.env.CATALOG_IO_VALIDATE_THREADS === undefined) return undefined;
  return new ThreadPool(threads);
}

/** What the head of a file tells `auto`: whether it quotes a cell, and its bytes per line. */
export interface FileHead {
  quoted: boolean;
  /** 0 when the head holds no whole line. */
  bytesPerLine: number;
}

/**
 * Whether a local CSV file of `size` bytes is checked in parts: `on` always, `auto` when its head
 * (`head` reads it, only for a file that could hold AUTO_FROM_ROWS rows) quotes no cell and its lines
 * tell of AUTO_FROM_ROWS rows or more, `off` never.
 */
export function wantsParts(mode: string, size: number, head: () => FileHead): boolean {
  if (mode === 'on') return true;
  if (mode !== 'auto' || size < AUTO_FROM_ROWS * 2) return false;
  const { quoted, bytesPerLine } = head();
  return !quoted && bytesPerLine > 0 && size / bytesPerLine >= AUTO_FROM_ROWS;
}

/** The first HEAD_PROBE_BYTES of the file: any double quote (a quoted header name or cell), bytes a line. */
export function fileHead(path: string): FileHead {
  const head = Buffer.alloc(HEAD_PROBE_BYTES);
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const read = readSync(fd, head, 0, head.length, 0);
    const bytes = head.subarray(0, read);
    let lines = 0;
    let end = -1;
    for (let at = bytes.indexOf(0x0a); at >= 0; at = bytes.indexOf(0x0a, at + 1)) {
      lines++;
      end = at + 1;
    }
    return { quoted: bytes.includes(0x22), bytesPerLine: lines > 0 ? end / lines : 0 };
  } catch {
    return { quoted: true, bytesPerLine: 0 };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Threads beside this one, which checks parts too: one per further core (at most 3). */
function threadCount(): number {
  return Number(process.env.CATALOG_IO_VALIDATE_THREADS ?? Math.min(3, availableParallelism() - 1));
}

export interface PartsPlan {
  /** The buffers parts are read into, shared with the threads. */
  pool: SlotPool;
  /** Parts checked so far (by a thread or here). */
  checked: number;
  path: string;
  start: DataStart;
  input: PartThreadInput;
  partBytes: number;
  threads: number;
  maxRecordBytes: number;
}

/**
 * How to check this source in parts, or undefined to check it on one thread: a local UTF-8 CSV file of
 * some size, without a reference check (it follows the tenant and the whole file), with a profile whose
 * rows stand alone (no fill-down, no product groups across rows), a report and rejects file written as
 * lines. `CATALOG_IO_VALIDATE_PARTS`: `auto` (the default) splits files of about a million rows and more
 * whose head quotes no cell, `on` whatever the file, `off` never; `CATALOG_IO_VALIDATE_PART_BYTES` sets the
 * part size.
 */
export async function partsPlan(
  spec: string,
  opened: OpenedSource,
  options: ValidateRowsOptions,
  readerOptions: ReaderOptions,
  threadPool: ThreadPool,
): Promise<PartsPlan | undefined> {
  // The threads exist only for a file the policy chose (startPartThreads): what the file's opening
  // tells is checked here.
  const local = spec !== '-' && !/^[a-z][a-z0-9+.-]*:\/\//i.test(spec) && !readerOptions.stdin;
  if (!local || opened.format !== 'csv' || !opened.csv || opened.encoding !== 'utf-8') return undefined;
  if (opened.notes.some((note) => note.startsWith('gzip'))) return undefined;
  if (options.references) return undefined;
  const { profile } = options;
  if (profile.fillDown || profile.variants || profile.parentColumn) return undefined;
  if (options.report && !(options.report.format && options.report.writeBytes)) return undefined;
  if (options.rejects && !options.rejects.writeText) return undefined;
  const threads = threadPool.size;
  const settings = resolveOptions(readerOptions);
  // Where the data starts, found by the same rules as the parts' ends (undefined: the head does not tell).
  const start = await dataStart(spec, opened.csv.headerLine, opened.delimiter ?? ',');
  if (!start) return undefined;
  const unguardFormulas = options.unguardFormulas ?? false;
  const partBytes = Number(process.env.CATALOG_IO_VALIDATE_PART_BYTES ?? PART_BYTES);
  // The parts given out, the one being read and the one checked here.
  const pool = new SlotPool((threads + 1) * PARTS_PER_THREAD + 2, partBytes);
  return {
    pool,
    checked: 0,
    path: spec,
    start,
    partBytes,
    threads,
    maxRecordBytes: maxRowBytes(settings.maxCellBytes),
    input: {
      model: modelData(options.model),
      profile,
      strict: options.strict ?? false,
      unguardFormulas,
      ...(options.onAssetError && { onAssetError: options.onAssetError }),
      ...(options.damHosts && { damHosts: options.damHosts }),
      source: opened.source,
      headers: opened.headers,
      delimiter: opened.delimiter ?? ',',
      trim: opened.csv.trim,
      maxCellBytes: settings.maxCellBytes,
      ...(options.report?.format && { report: options.report.format }),
      // A CSV source's rejects file speaks its dialect; the formula guard is off only for `--raw`.
      ...(options.rejects && { rejects: { delimiter: opened.delimiter ?? ',', guard: unguardFormulas } }),
      secrets: registeredSecrets(),
      slots: pool.slots,
    },
  };
}

/**
 * Checks the file in parts: the same summary, report and rejects as `validateRows` over the whole file.
 * `opened` (its header read) is closed here; its notes get the file's note on short rows.
 */
export async function validateParts(
  plan: PartsPlan,
  options: ValidateRowsOptions,
  opened: OpenedSource,
  pool: ThreadPool,
): Promise<ValidateSummary> {
  // The header's reader is done with: closing it must not leave a note about the one row it read.
  const notes = [...opened.notes];
  await opened.close();
  opened.notes.splice(0, opened.notes.length, ...notes);
  const summary: ValidateSummary = emptySummary();
  // A part checked again here is answered from its own questions' answers, in order (see checkAgain).
  const replay: Replay = { answers: undefined, at: 0 };
  const checker: RowChecker = new RowChecker({
    model: options.model,
    profile: options.profile,
    strict: options.strict ?? false,
    ...(options.refLimit !== undefined && { refLimit: options.refLimit }),
    ...(options.unguardFormulas !== undefined && { unguardFormulas: options.unguardFormulas }),
    duplicates: (entity, ref, line) =>
      replay.answers ? replay.answers[replay.at++] : checker.firstUseOfLine(entity, ref, line),
  });
  // The file's size and its head's lines tell how many rows are coming: the duplicate check makes room
  // for them at once (as one thread does after a few thousand rows), not by doubling its table.
  const { bytesPerLine } = fileHead(plan.path);
  if (bytesPerLine > 0 && opened.totalBytes) checker.expectRows(opened.totalBytes / bytesPerLine);
  const short: ShortRows = emptyRowCounter(plan.input.headers.length);
  const warnings = new Set<string>();
  const here: Here = {
    checker,
    summary,
    options,
    assets: new AssetCheck(options.damHosts),
    short,
    plan,
    replay,
  };
  const parts = new FileParts(
    plan.path,
    plan.start,
    plan.input.delimiter,
    plan.partBytes,
    plan.maxRecordBytes,
    plan.pool,
  );
  opened.bytesRead = () => parts.bytesRead;
  try {
    await checkInParts(parts, here, warnings, pool);
  } finally {
    await parts.close();
    checker.close();
  }
  for (const warning of checker.warnings()) warnings.add(warning);
  summary.warnings = [...warnings];
  summary.topErrors = checker.topErrors(10);
  opened.notes.push(...rowLengthNotes(short, plan.input.headers.length));
  return summary;
}

interface Replay {
  answers: Array<string | undefined> | undefined;
  at: number;
}

interface Here {
  replay: Replay;
  checker: RowChecker;
  summary: ValidateSummary;
  options: ValidateRowsOptions;
  assets: AssetCheck;
  short: ShortRows;
  plan: PartsPlan;
}

/**
 * A part read and waiting for its turn: checked by a thread or here (`result`), or not yet given out.
 * Parts checked here are checked as a thread checks them (PartChecker), whenever this thread would
 * otherwise wait, and wait for their turn like the threads' results.
 */
interface Given {
  part: Part;
  /** Dealt to this thread. */
  mine: boolean;
  result?: Promise<PartResult>;
  settled?: boolean;
}

async function checkInParts(
  parts: FileParts,
  here: Here,
  warnings: Set<string>,
  pool: ThreadPool,
): Promise<void> {
  const { plan, summary, options, checker } = here;
  pool.init(plan.input);
  const local = new PartChecker(plan.input, options.model);
  // Tests make the threads take their share from the first part on.
  if (process.env.CATALOG_IO_VALIDATE_WAIT_THREADS === '1') await pool.ready();
  try {
    const given: Given[] = [];
    let rest: DataStart | undefined;
    let ended = false;
    const window = (plan.threads + 1) * PARTS_PER_THREAD;
    // Parts are dealt in turn: one to this thread, then MAIN_SHARE to each part thread (this thread also
    // reads the file, answers the duplicate check and writes every part's bytes).
    let sinceMine = Number.POSITIVE_INFINITY;
    let seq = 0;
    // Report buffers whose lines are written: they go back to a checker with a later part.
    const spares: ArrayBuffer[] = [];
    for (;;) {
      if (options.signal?.aborted) throw options.signal.reason;
      while (!ended && given.length < window) {
        const next = await parts.next();
        if (next === undefined) ended = true;
        else if ('rest' in next) {
          ended = true;
          rest = next;
        } else {
          const share = checker.refsInOrder ? MAIN_SHARE : MAIN_SHARE_OUT_OF_ORDER;
          const mine = sinceMine >= share * plan.threads;
          sinceMine = mine ? 0 : sinceMine + 1;
          given.push({ part: next, mine });
        }
      }
      // A thread's parts go out while it has room; one it cannot take yet stays for this thread.
      for (const entry of given) {
        if (entry.result || entry.mine) continue;
        const result = pool.offer(entry.part, spares);
        if (!result) break;
        track(entry, result);
      }
      const first = given[0];
      if (!first) break;
      if (!first.settled) {
        // Rather than wait for the first part's result, this thread checks the first part nobody has;
        // then lets the threads' messages in (a thread that became ready, a result that came).
        const open = given.find((entry) => !entry.result);
        if (open) {
          const result = await local.check(partMessage(open.part, seq++, spares.pop()));
          open.result = Promise.resolve(result);
          open.settled = true;
          await new Promise<void>((resolve) => setImmediate(resolve));
          continue;
        }
      }
      given.shift();
      plan.checked++;
      const result = await first.result!;
      if (result.assets) {
        // The asset check follows the whole file: from this part on, the rows are checked here.
        rest = { offset: first.part.offset, line: first.part.firstLine };
        break;
      }
      if (askDuplicates(checker, result)) {
        await checkAgain(here, result, first.part.firstLine);
        plan.pool.release(first.part.slot);
        if (result.report) spares.push(result.report);
        continue;
      }
      plan.pool.release(first.part.slot);
      for (const w of result.warnings) warnings.add(w);
      summary.rows += result.rows;
      summary.outcomes.valid += result.outcomes.valid;
      summary.outcomes.invalid += result.outcomes.invalid;
      summary.outcomes.skipped += result.outcomes.skipped;
      summary.warned += result.warned;
      checker.addKinds(result.kinds);
      mergeShortRows(here.short, result.short);
      if (result.report && result.reportLength > 0)
        await options.report?.writeBytes?.(new Uint8Array(result.report, 0, result.reportLength));
      // The writer copied the lines: the buffer can take another part's.
      if (result.report) spares.push(result.report);
      if (result.rejected > 0) await options.rejects?.writeText?.(result.rejects, result.rejected);
      if (result.error) throw partError(result.error);
      options.onRow?.(summary);
    }
    if (rest) await checkRest(here, rest);
  } finally {
    await pool.close();
  }
}

function track(entry: Given, result: Promise<PartResult>): void {
  entry.result = result;
  result.then(
    () => {
      entry.settled = true;
    },
    () => {
      entry.settled = true;
    },
  );
}

/**
 * Asks the file's duplicate check the part's questions, in order; true when a ref was used before (the
 * part is then checked again here with these answers, see `checkAgain`).
 */
function askDuplicates(checker: RowChecker, result: PartResult): boolean {
  const { hashes, lines, run } = result.refs;
  const said = checker.checkPart(hashes, lines, run);
  if (said) answersOf.set(result, said);
  return said !== undefined;
}

const answersOf = new WeakMap<PartResult, Array<string | undefined>>();

/** A part with a duplicate: its rows checked here with the file's answers, written as on one thread. */
async function checkAgain(here: Here, result: PartResult, firstLine: number): Promise<void> {
  const decoded: DecodeStatus = { invalidSequences: 0 };
  const bytes = result.slot >= 0 ? here.plan.pool.slots[result.slot]! : result.bytes!;
  const text = decodeUtf8Part(Buffer.from(bytes, 0, result.length), decoded);
  const { rows, short } = readCsvPart(pieces(text), partSettings(here.plan, firstLine, decoded));
  here.replay.answers = answersOf.get(result);
  here.replay.at = 0;
  try {
    await checkRows(here.checker, here.summary, rowsOf(here, rows), here.assets);
  } finally {
    here.replay.answers = undefined;
    mergeShortRows(here.short, short);
  }
}

/** The rest of the file, from `offset`, read as a stream and checked here. */
async function checkRest(here: Here, from: DataStart): Promise<void> {
  const decoded: DecodeStatus = { invalidSequences: 0 };
  const stream = createReadStream(here.plan.path, { start: from.offset, highWaterMark: 64 * 1024 });
  try {
    const text = decode(stream as AsyncIterable<Buffer>, 'utf-8', decoded);
    const { rows, short } = readCsvPart(text, partSettings(here.plan, from.line, decoded));
    try {
      await checkRows(here.checker, here.summary, rowsOf(here, rows), here.assets);
    } finally {
      mergeShortRows(here.short, short);
    }
  } finally {
    stream.destroy();
  }
}

function rowsOf(here: Here, rows: AsyncIterable<SourceRow>): ValidateRowsOptions {
  const { source: _, ...options } = here.options;
  return { ...options, rows };
}

function partSettings(plan: PartsPlan, firstLine: number, decoded: DecodeStatus) {
  const { source, headers, delimiter, trim, maxCellBytes } = plan.input;
  return { source, headers, delimiter, trim, maxCellBytes, firstLine, decoded };
}

/** The error a part ended in, as the reader threw it. */
function partError(error: NonNullable<PartResult['error']>): Error {
  if (error.code === undefined)
    return new CatalogIoError('INTERNAL', `A validate thread failed: ${error.message}`);
  const suffix = error.location === undefined ? '' : ` (${error.location})`;
  const message =
    suffix && error.message.endsWith(suffix) ? error.message.slice(0, -suffix.length) : error.message;
  return new CatalogIoError(error.code as ErrorCode, message, {
    ...(error.details ?? {}),
    ...(error.location !== undefined && { location: error.location }),
  });
}
