// The JSON reader core: records from a top-level array, or from an array inside an object (the
// `jsonPath`, else the first array-valued key such as `value` or `products`). Tokens come from
// stream-json's tokenizer; each record is assembled alone, so memory holds one record at a time.
import Assembler from 'stream-json/assembler.js';
import { CatalogIoError } from '../../errors.js';
import { emptyCells } from '../headers.js';
import type { Cell, SourceRow } from '../types.js';
import { flattenRecord, HeaderUnion } from './flatten.js';
import { locateSyntaxError, PositionTracker, syntaxDetail } from './locate.js';
import { createTokenizer, type Token } from './tokenizer.js';

export interface JsonSettings {
  source: string;
  maxCellBytes: number;
  /** Dotted keys to the records array; auto when absent. */
  jsonPath?: string;
  /** Receives what was detected (the key the records came from). */
  notes?: string[];
  /** Reads the same text again from the start: lets a syntax error name its exact line and column. */
  reopen?: () => Promise<{ text: AsyncIterable<string>; close(): Promise<void> }>;
}

export interface OpenedRecords {
  /** Union of the columns seen so far; grows while rows are read. */
  headers: string[];
  rows: AsyncIterable<SourceRow>;
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
  let index = 0;
  let seenRoot = false;
  const position = new PositionTracker();
  let offset = 0;

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
    return { location, cells: flattenRecord(value, headers, settings.maxCellBytes, where), index };
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
            assembler = new Assembler();
            assembler.consume(token);
          } else {
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

  for await (const chunk of text) {
    let tokens: Token[];
    try {
      tokens = tokenizer.write(chunk);
    } catch (err) {
      throw await syntaxError(err, settings, offset, position);
    }
    offset += chunk.length;
    position.advance(chunk);
    yield* consume(tokens);
  }
  let tail: Token[];
  try {
    tail = tokenizer.end();
  } catch (err) {
    throw await syntaxError(err, settings, offset, position);
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

async function syntaxError(
  err: unknown,
  settings: JsonSettings,
  chunkOffset: number,
  chunkStart: PositionTracker,
): Promise<CatalogIoError> {
  if (err instanceof CatalogIoError) return err;
  let detail = syntaxDetail((err as Error).message);
  let location = `line ${chunkStart.line} or after`;
  if (settings.reopen) {
    const again = await settings.reopen();
    try {
      const found = await locateSyntaxError(again.text, chunkOffset);
      if (found) {
        location = `line ${found.line}, column ${found.column}`;
        detail = syntaxDetail(found.message);
      }
    } catch {
      // the first report stands
    } finally {
      await again.close();
    }
  }
  return new CatalogIoError('JSON_SYNTAX', `Invalid JSON: ${detail}`, { location });
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
