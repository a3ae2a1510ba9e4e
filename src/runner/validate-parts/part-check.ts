// A part of a CSV file checked on its own (see parts.ts), on a part thread or on the main thread.
import { isCatalogIoError } from '../../errors.js';
import { readCsvPart } from '../../readers/csv/csv.js';
import { type DecodeStatus, decodeUtf8Part } from '../../readers/utf8-part.js';
import type { TenantModel } from '../../schema/model.js';
import type { RejectsWriter } from '../../writers/rejects.js';
import { csvRejectsText } from '../../writers/rejects-text.js';
import type { ReportWriter } from '../../writers/report.js';
import { type ReportText, reportText } from '../../writers/report-text.js';
import { AssetCheck } from '../asset-check.js';
import { RowChecker } from '../check.js';
import { checkRows, emptySummary, type ValidateSummary } from '../validate-rows.js';
import type { PartMessage, PartResult, PartThreadInput } from './protocol.js';

/** The refs asked about, gathered for the main thread. */
class RefNotes {
  entities: string[] = [];
  entity: number[] = [];
  text = '';
  lengths: number[] = [];
  lines: number[] = [];
  private lastEntity = '';
  private lastIndex = -1;

  note(entity: string, ref: string, line: number): undefined {
    if (entity !== this.lastEntity || this.lastIndex < 0) {
      this.lastEntity = entity;
      this.lastIndex = this.entities.indexOf(entity);
      if (this.lastIndex < 0) this.lastIndex = this.entities.push(entity) - 1;
    }
    this.entity.push(this.lastIndex);
    this.text += ref;
    this.lengths.push(ref.length);
    this.lines.push(line);
    return undefined;
  }
}

/**
 * Checks parts one at a time: the same reader, checker and row loop as one thread over the whole file,
 * the report and rejects lines gathered as text, the duplicate check's questions noted for the thread
 * that knows the whole file.
 */
export class PartChecker {
  private notes = new RefNotes();
  private readonly checker: RowChecker;
  private readonly lines: ReportText | undefined;
  private readonly rejectsText: ReturnType<typeof csvRejectsText> | undefined;

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
    this.notes = new RefNotes();
    const notes = this.notes;
    let report = '';
    let rejects = '';
    let rejected = 0;
    const reportWriter: ReportWriter | undefined = lines && {
      write(line) {
        report += lines.line(line);
        return undefined;
      },
      writeValid(location, entity, ref) {
        report += lines.valid(location, entity, ref);
        return undefined;
      },
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
      report,
      rejects,
      rejected,
      kinds: checker.takeKinds(),
      refs: {
        entities: notes.entities,
        entity: Uint16Array.from(notes.entity),
        text: notes.text,
        lengths: Int32Array.from(notes.lengths),
        lines: Int32Array.from(notes.lines),
      },
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
