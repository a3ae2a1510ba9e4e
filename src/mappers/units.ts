// Units of measure a feed may write its numbers in (`Weight (lbs)`, `12 oz`), and how to convert them to
// the unit a field holds. A field's unit is read off its description (`Weight in kg`): the tenant's
// `$metadata` has no unit of its own.
import type { FieldModel } from '../schema/model.js';

interface Unit {
  family: 'weight' | 'length' | 'volume';
  /** How many of the family's base unit (kg, m, l) one of this unit is. */
  factor: number;
}

const UNITS: Record<string, Unit> = {
  kg: { family: 'weight', factor: 1 },
  g: { family: 'weight', factor: 0.001 },
  gr: { family: 'weight', factor: 0.001 },
  mg: { family: 'weight', factor: 0.000001 },
  t: { family: 'weight', factor: 1000 },
  lb: { family: 'weight', factor: 0.45359237 },
  lbs: { family: 'weight', factor: 0.45359237 },
  oz: { family: 'weight', factor: 0.028349523125 },
  mm: { family: 'length', factor: 0.001 },
  cm: { family: 'length', factor: 0.01 },
  m: { family: 'length', factor: 1 },
  in: { family: 'length', factor: 0.0254 },
  inch: { family: 'length', factor: 0.0254 },
  ft: { family: 'length', factor: 0.3048 },
  ml: { family: 'volume', factor: 0.001 },
  cl: { family: 'volume', factor: 0.01 },
  l: { family: 'volume', factor: 1 },
};

/** The unit names a profile's `unit` accepts. */
export const UNIT_NAMES: readonly string[] = Object.keys(UNITS);

/** `lbs` and `LB` are the same unit; undefined for a word that is no unit. */
export function unitOf(word: string): string | undefined {
  const lower = word.toLowerCase();
  if (!(lower in UNITS)) return undefined;
  return lower === 'lbs' ? 'lb' : lower === 'inch' ? 'in' : lower === 'gr' ? 'g' : lower;
}

/** The unit a field's description names (`Weight in kg` -> `kg`), if any. */
export function fieldUnit(field: FieldModel): string | undefined {
  const description = field.description ?? '';
  const named = /\bin ([A-Za-z]+)\b/.exec(description);
  if (named && unitOf(named[1]!)) return unitOf(named[1]!);
  for (const word of description.split(/[^A-Za-z]+/)) {
    // Single letters (`g`, `m`, `l`, `t`) are words of a sentence too often: only `in kg`-like units count.
    if (word.length < 2) continue;
    const unit = unitOf(word);
    if (unit && word !== 'in') return unit;
  }
  return undefined;
}

/** Whether two units measure the same thing (weight with weight). */
export function sameFamily(a: string, b: string): boolean {
  return UNITS[a] !== undefined && UNITS[a]!.family === UNITS[b]?.family;
}

/** The factor that turns a number in `from` into one in `to` (both units of one family). */
export function unitFactor(from: string, to: string): number {
  return UNITS[from]!.factor / UNITS[to]!.factor;
}

/** A converted value without the binary noise of the factor (0.5 lb -> 0.226796185 kg, not ...0000001). */
export function convertUnit(value: number, factor: number): number {
  return factor === 1 ? value : Number((value * factor).toPrecision(12));
}

/** `12 kg`, `0.5lbs`, `1.234,5 g`: the number's text and its unit; undefined when no unit follows it. */
export function splitUnit(text: string): { number: string; unit: string } | undefined {
  const m = /^(.*?\d)\s*([A-Za-z]{1,4})\.?$/.exec(text.trim());
  if (!m) return undefined;
  const unit = unitOf(m[2]!);
  return unit ? { number: m[1]!, unit } : undefined;
}
