// What a column's sample values look like: the draft uses it to choose between fields a header could
// name (`Code` holding valid EAN-13s is a barcode, not a ref) and to place a column its header does not explain.
import type { SourceRow } from '../../readers/types.js';
import type { FieldModel } from '../../schema/model.js';

export type ValueShape = 'ean' | 'url' | 'date' | 'decimal' | 'integer' | 'boolean' | 'text';

const URL = /^https?:\/\/\S+$/i;
const DATE =
  /^(?:\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?|\d{1,2}[./]\d{1,2}[./]\d{4})$/;
/** `12`, `12.5`, `12,5`, `1.234,50`, `1,234.50`, `-3`. */
const DECIMAL = /^-?(?:\d{1,3}(?:[.,\s]\d{3})+|\d+)(?:[.,]\d+)?$/;
const INTEGER = /^-?\d+$/;
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
  if (DATE.test(text)) return 'date';
  if (BOOLEAN.test(text) && !/^\d$/.test(text)) return 'boolean';
  if (INTEGER.test(text)) return 'integer';
  if (DECIMAL.test(text)) return 'decimal';
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
  if (field.asset) return shape === 'url' || shape === 'text';
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

/** Up to 20 distinct non-empty values per column, as text, from the first `maxRows` rows. */
export async function collectSamples(
  rows: AsyncIterable<SourceRow>,
  maxRows: number,
): Promise<Map<string, string[]>> {
  const samples = new Map<string, string[]>();
  let n = 0;
  for await (const row of rows) {
    for (const [header, cell] of Object.entries(row.cells)) {
      if (cell === null || cell === '' || typeof cell === 'object') continue;
      const text = String(cell);
      let list = samples.get(header);
      if (!list) {
        list = [];
        samples.set(header, list);
      }
      if (list.length < SAMPLES_PER_COLUMN && !list.includes(text)) list.push(text);
    }
    if (++n >= maxRows) break;
  }
  return samples;
}
