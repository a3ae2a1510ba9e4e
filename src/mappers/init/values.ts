// What a column's sample values look like: the draft uses it to choose between fields a header could
// name (`Code` holding valid EAN-13s is a barcode, not a ref) and to place a column its header does not explain.
import type { SourceRow } from '../../readers/types.js';
import type { FieldModel } from '../../schema/model.js';
import { splitUnit } from '../units.js';

export type ValueShape = 'ean' | 'url' | 'image' | 'date' | 'decimal' | 'integer' | 'boolean' | 'text';

const URL = /^https?:\/\/\S+$/i;
const DATE =
  /^(?:\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?|\d{1,2}[./]\d{1,2}[./]\d{4})$/;
/** `12`, `12.5`, `12,5`, `.5`, `1.234,50`, `1,234.50`, `-3`. */
const DECIMAL = /^-?(?:(?:\d{1,3}(?:[.,\s]\d{3})+|\d+)(?:[.,]\d+)?|[.,]\d+)$/;
/** `12`, and `10.0000` as exports write whole numbers. */
const INTEGER = /^-?\d+(?:\.0+)?$/;
/** A file name or relative path with an image extension: `1.webp`, `/m/h/mh01-black_main.jpg`. */
const IMAGE_FILE = /^[^\s?#]+\.(?:jpe?g|png|gif|tiff?|webp|psd)$/i;
const BOOLEAN = /^(?:true|false|yes|no|y|n|0|1|x|ja|nein|oui|non|si|sí|vero|falso)$/i;

/** A valid EAN-13 (or GTIN-14 / UPC-A): digits with a correct check digit. */
export function isGtin(text: string): boolean {
  if (!/^\d{12,14}$/.test(text)) return false;
  let sum = 0;
  for (let i = text.length - 2, weight = 3; i >= 0; i--, weight = 4 - weight) sum += Number(text[i]) * weight;
  return (10 - (sum % 10)) % 10 === Number(text[text.length - 1]);
}

function shapeOf(text: string): ValueShape {
  if (isGtin(text)) return 'ean';
  if (URL.test(text)) return 'url';
  if (IMAGE_FILE.test(text)) return 'image';
  if (DATE.test(text)) return 'date';
  if (BOOLEAN.test(text) && !/^\d$/.test(text)) return 'boolean';
  if (INTEGER.test(text)) return 'integer';
  if (DECIMAL.test(text)) return 'decimal';
  // `12 kg`, `0.5lbs`: a number in a unit.
  const measured = splitUnit(text);
  if (measured && DECIMAL.test(measured.number)) return 'decimal';
  return 'text';
}

/** The shape every sample has (integers count as decimals beside decimals), or undefined for none or mixed. */
export function columnShape(samples: readonly string[]): ValueShape | undefined {
  let shape: ValueShape | undefined;
  for (const sample of samples) {
    const s = shapeOf(sample.trim());
    if (shape === undefined || shape === s) shape = s;
    else if ((shape === 'integer' && s === 'decimal') || (shape === 'decimal' && s === 'integer'))
      shape = 'decimal';
    else if ((shape === 'ean' && s === 'integer') || (shape === 'integer' && s === 'ean')) shape = 'integer';
    else if ((shape === 'url' && s === 'image') || (shape === 'image' && s === 'url')) shape = 'url';
    else return 'text';
  }
  return shape;
}

/**
 * Whether values of this shape can fill the field: numbers in number fields, dates in date fields, URLs
 * (or file names) in image and file fields. Text fits any text field; no samples fit everything.
 */
export function fits(shape: ValueShape | undefined, field: FieldModel): boolean {
  if (shape === undefined) return true;
  if (field.asset) return shape === 'url' || shape === 'image';
  switch (field.type) {
    case 'number':
      return shape === 'decimal' || shape === 'integer';
    case 'integer':
      return shape === 'integer';
    case 'boolean':
      return shape === 'boolean' || shape === 'integer';
    case 'date':
    case 'date-time':
      return shape === 'date';
    default:
      if (field.pattern === '^[0-9]{13}$') return shape === 'ean' || shape === 'integer';
      return shape !== 'url' || field.multiple || /url|link/i.test(field.name);
  }
}

/** Values kept per column to judge its shape: enough to see a pattern, few enough to print. */
const SAMPLES_PER_COLUMN = 20;
/** Distinct values counted per column (one repeated URL is not a product's image; many distinct ones are). */
const DISTINCT_LIMIT = 1000;
/** Longest cell text kept for the row table (refs and parents are short; descriptions need not be whole). */
const CELL_LIMIT = 200;

/** What the first rows of a feed look like: the draft's evidence, in bounded memory. */
export interface FeedSample {
  /** Up to 20 distinct non-empty values per column, as text (a list's items one by one). */
  values: Map<string, string[]>;
  /** Columns whose cells are lists (JSON arrays). */
  lists: Set<string>;
  /** Distinct non-empty cells per column, counted up to 1,000. */
  distinct: Map<string, number>;
  /** The sampled rows, header -> cell text (blank cells left out), cut at 200 characters. */
  rows: Array<Map<string, string>>;
}

/** An empty sample: a draft from headers alone. */
export function emptySample(): FeedSample {
  return { values: new Map(), lists: new Set(), distinct: new Map(), rows: [] };
}

/** The sample of the first `maxRows` rows. */
export async function collectSamples(rows: AsyncIterable<SourceRow>, maxRows: number): Promise<FeedSample> {
  const sample = emptySample();
  const seen = new Map<string, Set<string>>();
  for await (const row of rows) {
    const cells = new Map<string, string>();
    for (const [header, cell] of Object.entries(row.cells)) {
      if (cell === null || cell === '') continue;
      const items = Array.isArray(cell) ? cell : [cell];
      if (Array.isArray(cell)) sample.lists.add(header);
      const whole = Array.isArray(cell) ? JSON.stringify(cell) : String(cell);
      if (whole.trim() === '' || whole === '[]') continue;
      cells.set(header, whole.length > CELL_LIMIT ? whole.slice(0, CELL_LIMIT) : whole);
      let distinct = seen.get(header);
      if (!distinct) {
        distinct = new Set();
        seen.set(header, distinct);
      }
      if (distinct.size < DISTINCT_LIMIT) distinct.add(whole);
      let list = sample.values.get(header);
      if (!list) {
        list = [];
        sample.values.set(header, list);
      }
      for (const item of items) {
        if (item === null || typeof item === 'object') continue;
        const text = String(item);
        if (text.trim() !== '' && list.length < SAMPLES_PER_COLUMN && !list.includes(text)) list.push(text);
      }
    }
    sample.rows.push(cells);
    if (sample.rows.length >= maxRows) break;
  }
  for (const [header, distinct] of seen) sample.distinct.set(header, distinct.size);
  return sample;
}
