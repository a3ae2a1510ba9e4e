// Header names from a sheet's first row of cells.
import type { Cell } from '../types.js';

/** Text of a cell for header names (numbers become their digits). */
export function cellText(cell: Cell): string {
  if (cell === null) return '';
  return Array.isArray(cell) ? cell.join(',') : String(cell).trim();
}
