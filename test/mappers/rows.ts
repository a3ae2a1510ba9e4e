// SourceRow builders for mapping tests: what a CSV reader would yield for these lines.
import type { Cell, SourceRow } from '../../src/readers/types.js';

export function csvRows(header: string[], lines: Cell[][], source = 'feed.csv'): SourceRow[] {
  return lines.map((line, i) => {
    const cells: Record<string, Cell> = Object.create(null);
    header.forEach((h, j) => {
      cells[h] = line[j] ?? '';
    });
    return { location: { text: `line ${i + 2}`, source, line: i + 2 }, cells, index: i + 1 };
  });
}

export function row(cells: Record<string, Cell>, line = 2): SourceRow {
  return { location: { text: `line ${line}`, source: 'feed.csv', line }, cells, index: line - 1 };
}
