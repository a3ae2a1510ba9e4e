// A part of a CSV file checked on its own (see parts.ts), on a part thread or on the main thread.
import { isCatalogIoError } from '../../errors.js';
import { readCsvPart } from '../../readers/csv/csv.js';
import { type DecodeStatus, decodeUtf8Part } from '../../readers/utf8-part.js';
import type { TenantModel } from '../../schema/model.js';
import type { ByteTail } from '../../writers/lines.js';
import type { RejectsWriter } from '../../writers/rejects.js';
import { csvRejectsText } from '../../writers/rejects-text.js';
import type { ReportWriter } from '../../writers/report.js';
import { type ReportText, reportText } from '../../writers/report-text.js';
import { AssetCheck } from '../asset-check.js';
import { RowChecker } from '../check.js';
import { RefHasher } from '../ref-tracker.js';
import { checkRows, emptySummary, type ValidateSummary } from '../validate-rows.js';
import type { PartMessage, PartRefs, PartResult, PartThreadInput } from './protocol.js';

/**
 * The refs asked about, gathered for the main thread as hashes (RefHasher: the main thread's tracker
 * takes them as they are), with whether they rose one after the other (a file sorted by ref).
 */
class RefNotes {
  hashes = new Int32Array(2 * 1024);
  lines = new Int32Array(1024);
  count = 0;
  /** The refs rose so far within one entity. */
  rising = true;
  entity: string | undefined;
  first = '';
  last = '';

  constructor(private readonly hasher: RefHasher) {}

  note(entity: string, ref: string, line: number): undefined {
    const n = this.count++;
    if (n === 0) {
      this.entity = entity;
      this.first = ref;
    } else if (this.rising && (entity !== this.entity || !(ref > this.last))) this.rising = false;
    this.last = ref;
    if (n === this.lines.length) {
      const hashes = new Int32Array(this.hashes.length * 2);
      hashes.set(this.hashes);
      this.hashes = hashes;
      const lines = new Int32Array(this.lines.length * 2);
      lines.set(this.lines);
      this.lines = lines;
    }
    this.hasher.hash(entity, ref);
    this.hashes[2 * n] = this.hasher.a;
    this.hashes[2 * n + 1] = this.hasher.b;
    this.lines[n] = line;
    return undefined;
  }

  refs(): PartRefs {
    const n = this.count;
    return {
      hashes: this.hashes.slice(0, 2 * n),
      lines: this.lines.slice(0, n),
      ...(n > 0 && this.rising && { run: { entity: this.entity!, first: this.first, last: this.last } }),
    };
  }
}

/**
 * A part's report lines as UTF-8 bytes, in a buffer of their own that grows (moved to the main thread):
 * one the main thread gave back when it has one.
 */
class ReportBytes implements ByteTail {
  chunk: Buffer;
  at = 0;

  constructor(spare: ArrayBuffer | undefined) {
    this.chunk = spare ? Buffer.from(spare) : Buffer.allocUnsafeSlow(64 * 1024);
  }

  room(bytes: number): undefined {
    if (bytes <= this.chunk.length - this.at) return undefined;
    const chunk = Buffer.allocUnsafeSlow(Math.max(this.chunk.length * 2, this.at + bytes));
    this.chunk.copy(chunk, 0, 0, this.at);
    this.chunk = chunk;
    return undefined;
  }

  text(text: string): undefined {
    this.room(text.length * 3);
    this.at += this.chunk.write(text, this.at);
    return undefined;
  }
}

/** Report buffers a checker keeps for later parts. */
const MAX_SPARES = 4;

/**
 * Checks parts one at a time: the same reader, checker and row loop as one thread over the whole file,
 * the report and rejects lines gathered as text, the duplicate check's questions noted for the thread
 * that knows the whole file.
 */
export class PartChecker {
  private readonly hasher = new RefHasher();
  private notes = new RefNotes(this.hasher);
  private readonly checker: RowChecker;
  private readonly lines: ReportText | undefined;
  private readonly rejectsText: ReturnType<typeof csvRejectsText> | undefined;
  /**
   * Report buffers the main thread gave back once it wrote their lines: a part's lines go into one of
   * them rather than into new memory, which the collector would free only late (it is outside its heap).
   */
  private readonly spares: ArrayBuffer[] = [];

  constructor(
    private readonly input: PartThreadInput,
    private readonly model: TenantModel,
  ) {
    this.checker = new RowChecker({
      model,
      profile: input.profile,
      strict: input.strict,
      unguardFormulas: input.unguardFormulas,
      // Every ref is new as far as this part knows: the thread that knows the file answers.
      duplicates: (entity, ref, line) => this.notes.note(entity, ref, line),
    });
    this.lines = input.report ? reportText(input.report) : undefined;
    this.rejectsText = input.rejects
      ? csvRejectsText({
          headers: input.headers,
          delimiter: input.rejects.delimiter,
          guard: input.rejects.guard,
        })
      : undefined;
  }

  async check(message: PartMessage): Promise<PartResult> {
    const { input, model, checker, lines, rejectsText } = this;
    this.notes = new RefNotes(this.hasher);
    const notes = this.notes;
    if (message.spare && this.spares.length < MAX_SPARES) this.spares.push(message.spare);
    const report = lines && new ReportBytes(this.spares.pop());
    let rejects = '';
    let rejected = 0;
    const { validAt, validRoom } = lines ?? {};
    const reportWriter: ReportWriter | undefined = lines &&
      report && {
        write: (line) => report.text(lines.line(line)),
        writeValid: (location, entity, ref) => report.text(lines.valid(location, entity, ref)),
        ...(validAt &&
          validRoom && {
            writeValidAt(line, entity, ref) {
              report.room(validRoom(ref));
              report.at = validAt(report.chunk, report.at, line, entity, ref);
              return undefined;
            },
          }),
        close: async () => {},
      };
    const rejectsWriter: RejectsWriter | undefined = rejectsText && {
      write(cells, error, location) {
        rejected++;
        rejects += rejectsText.line(cells, error, location);
        return undefined;
      },
      close: async () => {},
      get count() {
        return rejected;
      },
    };
    const decoded: DecodeStatus = { invalidSequences: 0 };
    const bytes = Buffer.from(
      message.slot >= 0 ? input.slots[message.slot]! : message.bytes!,
      0,
      message.length,
    );
    const text = decodeUtf8Part(bytes, decoded);
    const { rows, short } = readCsvPart(pieces(text), {
      source: input.source,
      headers: input.headers,
      delimiter: input.delimiter,
      trim: input.trim,
      maxCellBytes: input.maxCellBytes,
      firstLine: message.firstLine,
      decoded,
    });
    const summary: ValidateSummary = emptySummary();
    const assets = new AssetCheck(input.damHosts);
    let error: PartResult['error'];
    try {
      await checkRows(
        checker,
        summary,
        {
          rows,
          model,
          profile: input.profile,
          ...(reportWriter && { report: reportWriter }),
          ...(rejectsWriter && { rejects: rejectsWriter }),
          ...(input.damHosts && { damHosts: input.damHosts }),
          ...(input.onAssetError && { onAssetError: input.onAssetError }),
        },
        assets,
      );
    } catch (err) {
      error = isCatalogIoError(err)
        ? {
            code: err.code,
            message: err.message,
            ...(err.location !== undefined && { location: err.location }),
            details: err.details,
          }
        : { message: (err as Error).message ?? String(err) };
    }
    return {
      seq: message.seq,
      slot: message.slot,
      ...(message.bytes && { bytes: message.bytes }),
      length: message.length,
      rows: summary.rows,
      outcomes: summary.outcomes,
      warned: summary.warned,
      ...(report && { report: report.chunk.buffer as ArrayBuffer }),
      reportLength: report?.at ?? 0,
      rejects,
      rejected,
      kinds: checker.takeKinds(),
      refs: notes.refs(),
      short: { ...short },
      warnings: checker.warnings(),
      assets: assets.remembers,
      ...(error && { error }),
    };
  }
}

/** The pieces of a part's text, as a reader takes them. */
export async function* pieces(text: Iterable<string>): AsyncGenerator<string> {
  yield* text;
}
