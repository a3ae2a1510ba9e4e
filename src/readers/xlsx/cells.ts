// exceljs cell values to reader cells: dates as ISO 8601 UTC, formulas as their cached result,
// rich text and hyperlinks as plain text, errors as their text (#N/A), no value as null.
import type { Cell } from '../types.js';

export function toCell(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value === '' ? null : value;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (typeof value === 'object') {
    const object = value as Record<string, unknown>;
    if (Array.isArray(object.richText)) {
      return (object.richText as Array<{ text?: string }>).map((run) => run.text ?? '').join('');
    }
    if ('formula' in object || 'sharedFormula' in object) return toCell(object.result);
    if ('text' in object) return toCell(object.text);
    if ('error' in object) return String(object.error);
  }
  return String(value);
}

/** Text of a cell for header names (numbers become their digits). */
export function cellText(cell: Cell): string {
  if (cell === null) return '';
  return Array.isArray(cell) ? cell.join(',') : String(cell).trim();
}
