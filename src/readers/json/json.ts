// The JSON reader core: records from a top-level array, or from an array inside an object (the
// `jsonPath`, else the first array-valued key such as `value` or `products`). Tokens come from
// stream-json's tokenizer; each record is assembled alone, so memory holds one record at a time.
// Line and column are tracked while reading, so a syntax error is located from any source (locate.ts).
import Assembler from 'stream-json/assembler.js';
import { CatalogIoError } from '../../errors.js';
import type { DecodeStatus } from '../encoding.js';
import { emptyCells } from '../headers.js';
import { jsonTooDeep, RowProblem, rowTooLarge } from '../limits.js';
import { maxRowBytes } from '../options.js';
import type { Cell, SourceRow } from '../types.js';
import { flattenRecord, HeaderUnion, invalidIn, KEY_BYTES } from './flatten.js';
import { locateInText, PositionTracker, replayPrefix, syntaxDetail, type TextPosition } from './locate.js';
import { numberOrText } from './numbers.js';
import { createTokenizer, type Token } from './tokenizer.js';

export interface JsonSettings {
  source: string;
  maxCellBytes: number;
  maxJsonDepth: number;
  /** The decoder's count of invalid UTF-8: while it is 0, no row needs looking at for them. */
  decoded?: DecodeStatus;
  /** Dotted keys to the records array; auto when absent. */
  jsonPath?: string;
  /** Receives what was detected (the key the records came from). */
  notes?: string[];
}

/** Text without a line break is carried to the next chunk up to this length, then fed anyway. */
const LONG_LINE = 64 * 1024;
/** Text kept to locate a syntax error when no clean cut comes (JSON written on one long line). */
const WINDOW_CHARS = 8 * 1024 * 1024;

export interface OpenedRecords {
  /** Union of the columns seen so far; grows while rows are read. */
  headers: string[];
  rows: AsyncIterable<SourceRow>;
}

/** The assembler, with a number a double would change kept as its text (numbers.ts). */
class ExactAssembler extends Assembler {
  override numberValue(text: string): void {
    (this as unknown as { _saveValue(value: unknown): void })._saveValue(numberOrText(text));
  }
}

interface Container {
  isArray: boolean;
  /** Objects: the key whose value comes next. */
  key: string | null;
}

export function readJson(text: AsyncIterable<string>, settings: JsonSettings): OpenedRecords {
  const headers = new HeaderUnion();
  return { headers: headers.names, rows: jsonRows(text, settings, headers) };
}

async function* jsonRows(
  text: AsyncIterable<string>,
  settings: JsonSettings,
  headers: HeaderUnion,
): AsyncGenerator<SourceRow> {
  const path = settings.jsonPath?.split('.');
  const tokenizer = createTokenizer();
  const stack: Container[] = [];
  /** Depth of the records array once found; records are the values directly inside it. */
  let target = -1;
  let finished = false;
  let assembler: Assembler | null = null;
  /** Nesting inside the record being read (1: the record itself). */
  let depth = 0;
  /** A record found too deep or too large: its tokens are only counted, to its end, then it is reported. */
  let skipping: 'deep' | 'large' | false = false;
  /** The record's size so far (keys and values, with an allowance per key): a million keys are never built. */
  let recordBytes = 0;
  const maxRecordBytes = maxRowBytes(settings.maxCellBytes);
  let index = 0;
  const limits = { maxCellBytes: settings.maxCellBytes, maxDepth: settings.maxJsonDepth };
  let seenRoot = false;
  // Where a syntax error is (see locate.ts): the position of the text fed so far, and the window of
  // text fed since the last clean cut (a line break: nothing held back in the tokenizer).
  const position = new PositionTracker();
  let lastToken: string | undefined;
  let lastChar = '';
  let clean = true;
  let window: { start: TextPosition; prefix: string; passed: string[]; chars: number } | undefined;

  const row = (value: unknown): SourceRow => {
    index++;
    const where = `item ${index}`;
    const location = { text: where, source: settings.source, line: index };
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      return {
        location,
        cells: emptyCells<Cell>(),
        index,
        error: {
          code: 'JSON_NOT_RECORDS',
          message: `Not a record: expected an object, found ${describe(value)} (${where})`,
        },
      };
    }
    try {
      const { cells, error: tooLarge } = flattenRecord(value, headers, limits, where);
      const decoded = settings.decoded;
      const error =
        tooLarge ?? (decoded && decoded.invalidSequences > 0 ? invalidIn(cells, where) : undefined);
      return error ? { location, cells, index, error } : { location, cells, index };
    } catch (err) {
      if (!(err instanceof RowProblem)) throw err;
      return { location, cells: emptyCells<Cell>(), index, error: err.error };
    }
  };

  const skippedRow = (why: 'deep' | 'large'): SourceRow => {
    index++;
    const where = `item ${index}`;
    return {
      location: { text: where, source: settings.source, line: index },
      cells: emptyCells<Cell>(),
      index,
      error:
        why === 'deep'
          ? jsonTooDeep(settings.maxJsonDepth, where)
          : rowTooLarge(undefined, maxRecordBytes, where),
    };
  };

  /** The path of keys leading to the container on top of the stack matches the records path. */
  const isRecordsArray = (): boolean => {
    const keys: string[] = [];
    for (let i = 0; i < stack.length - 1; i++) {
      const key = stack[i]!.key;
      if (stack[i]!.isArray || key === null) return false;
      keys.push(key);
    }
    if (path) return keys.length === path.length && keys.every((key, i) => key === path[i]);
    if (keys.length === 0) return true;
    if (keys.length === 1) {
      settings.notes?.push(`records read from the key "${keys[0]}"`);
      return true;
    }
    return false;
  };

  function* consume(tokens: Token[]): Generator<SourceRow> {
    for (const token of tokens) {
      if (skipping || assembler) {
        // Depth is counted here, so a record nested thousands deep is never built.
        const name = token.name;
        if (name === 'startObject' || name === 'startArray') depth++;
        else if (name === 'endObject' || name === 'endArray') depth--;
        if (skipping) {
          if (depth === 0) {
            const why = skipping;
            skipping = false;
            yield skippedRow(why);
          }
          continue;
        }
        if (depth > settings.maxJsonDepth) {
          assembler = null;
          skipping = 'deep';
          continue;
        }
        const value = (token as { value?: unknown }).value;
        recordBytes += (typeof value === 'string' ? value.length : 0) + (name === 'keyValue' ? KEY_BYTES : 1);
        if (recordBytes > maxRecordBytes) {
          assembler = null;
          // The record ends where its depth comes back to 0 (a value closing it was just counted).
          if (depth === 0) yield skippedRow('large');
          else skipping = 'large';
          continue;
        }
      }
      if (assembler) {
        assembler.consume(token);
        if (assembler.done) {
          yield row(assembler.current);
          assembler = null;
        }
        continue;
      }
      const inRecords = target !== -1 && !finished && stack.length === target;
      seenRoot = true;
      switch (token.name) {
        case 'startObject':
        case 'startArray':
          if (inRecords) {
            assembler = new ExactAssembler();
            assembler.consume(token);
            depth = 1;
            recordBytes = 0;
          } else {
            if (stack.length >= settings.maxJsonDepth) {
              throw new CatalogIoError(
                'JSON_TOO_DEEP',
                `JSON nested too deep: more than ${settings.maxJsonDepth} levels before any records (raise --max-json-depth if the data is genuine)`,
                { location: `line ${position.line}` },
              );
            }
            stack.push({ isArray: token.name === 'startArray', key: null });
            if (target === -1 && token.name === 'startArray' && isRecordsArray()) target = stack.length;
          }
          break;
        case 'endObject':
        case 'endArray':
          stack.pop();
          if (target !== -1 && stack.length < target) finished = true;
          break;
        case 'keyValue':
          stack[stack.length - 1]!.key = token.value;
          break;
        case 'stringValue':
        case 'numberValue':
        case 'nullValue':
        case 'trueValue':
        case 'falseValue':
          if (inRecords) yield row(token.name === 'numberValue' ? Number(token.value) : token.value);
          break;
        default:
          break;
      }
    }
  }

  /** The open containers, outermost first (true: array), ours and then the assembler's. */
  const containers = (): boolean[] => {
    const open = stack.map((container) => container.isArray);
    if (assembler) {
      const held = assembler.stack;
      for (let i = 0; i < held.length; i += 2) open.push(Array.isArray(held[i]));
      open.push(Array.isArray(assembler.current));
    }
    return open;
  };

  function* feed(piece: string, endsClean: boolean): Generator<SourceRow> {
    if (clean) {
      const prefix = replayPrefix({ containers: containers(), lastToken, lastChar });
      window = { start: { line: position.line, column: position.column }, prefix, passed: [], chars: 0 };
    }
    let tokens: Token[];
    try {
      tokens = tokenizer.write(piece);
    } catch (err) {
      throw syntaxError(err, piece);
    }
    position.advance(piece);
    // After a clean cut the next piece starts a new window: only an unclean piece is kept.
    if (window && !endsClean) {
      window.passed.push(piece);
      window.chars += piece.length;
      if (window.chars > WINDOW_CHARS) window = undefined;
    }
    if (tokens.length > 0) lastToken = tokens[tokens.length - 1]!.name;
    lastChar = lastNonSpace(piece) || lastChar;
    clean = endsClean;
    yield* consume(tokens);
  }

  const syntaxError = (err: unknown, failing: string | undefined): CatalogIoError => {
    if (err instanceof CatalogIoError) return err;
    let detail = syntaxDetail((err as Error).message);
    // At the end of the text the position is exact as it is: the document stops too early.
    let location = `line ${position.line}, column ${position.column}`;
    if (failing !== undefined) {
      const found = window && locateInText(window.prefix, window.passed, failing, window.start);
      if (found) {
        location = `line ${found.line}, column ${found.column}`;
        detail = syntaxDetail(found.message);
      } else {
        location += ' or after';
      }
    }
    return new CatalogIoError('JSON_SYNTAX', `Invalid JSON: ${detail}`, { location });
  };

  // Text goes to the tokenizer up to the last line break of each chunk; the rest waits for the next.
  let carry = '';
  for await (const chunk of text) {
    const cut = chunk.lastIndexOf('\n');
    if (cut === -1) {
      carry += chunk;
      if (carry.length >= LONG_LINE) {
        const piece = carry;
        carry = '';
        yield* feed(piece, false);
      }
      continue;
    }
    const piece = carry + chunk.slice(0, cut + 1);
    carry = chunk.slice(cut + 1);
    yield* feed(piece, true);
  }
  if (carry.length > 0) yield* feed(carry, false);
  let tail: Token[];
  try {
    tail = tokenizer.end();
  } catch (err) {
    throw syntaxError(err, undefined);
  }
  yield* consume(tail);
  if (!seenRoot)
    throw new CatalogIoError('SOURCE_EMPTY', `Empty file: ${settings.source} holds no JSON value`);
  if (target === -1) {
    throw new CatalogIoError(
      'JSON_NOT_RECORDS',
      path
        ? `No records: ${settings.source} has no array at "${settings.jsonPath}"`
        : `No records: ${settings.source} is neither an array of records nor an object holding one; name it with --json-path`,
    );
  }
}

function lastNonSpace(text: string): string {
  for (let i = text.length - 1; i >= 0; i--) {
    const code = text.charCodeAt(i);
    if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) return text[i]!;
  }
  return '';
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
