// Which reader a source needs: the option, else the file extension, else the content. A `.json`
// that holds one object per line is NDJSON; a `.txt` or a name without extension is sniffed.
import { CatalogIoError } from '../errors.js';
import { bomEncoding } from './bom.js';

export type Format = 'csv' | 'xlsx' | 'json' | 'ndjson';
export const FORMATS: readonly Format[] = ['csv', 'xlsx', 'json', 'ndjson'];

const BY_EXTENSION: Record<string, Format | 'sniff'> = {
  csv: 'csv',
  tsv: 'csv',
  tab: 'csv',
  txt: 'sniff',
  xlsx: 'xlsx',
  xlsm: 'xlsx',
  json: 'json',
  ndjson: 'ndjson',
  jsonl: 'ndjson',
};

export function isZip(head: Buffer): boolean {
  return head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04;
}

/** The extension after removing `.gz`, lower-cased, or '' when there is none. */
export function extensionOf(fileName: string): string {
  const base = (fileName.split(/[\\/]/).pop() ?? '').replace(/\.gz$/, '');
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1) : '';
}

export function detectFormat(
  fileName: string,
  head: Buffer,
  requested: Format | undefined,
): { format: Format; notes: string[] } {
  if (requested) return { format: requested, notes: [] };
  const extension = extensionOf(fileName);
  const byExtension = BY_EXTENSION[extension];
  if (byExtension === 'csv' || byExtension === 'xlsx' || byExtension === 'ndjson') {
    return { format: byExtension, notes: [] };
  }
  const sniffed = sniff(head);
  if (byExtension === 'json') {
    if (sniffed === 'ndjson')
      return { format: 'ndjson', notes: ['format ndjson detected (one JSON object per line)'] };
    return { format: 'json', notes: [] };
  }
  return { format: sniffed, notes: [`format ${sniffed} detected from the content`] };
}

function sniff(head: Buffer): Format {
  if (isZip(head)) return 'xlsx';
  const text = headText(head).replace(/^\s+/, '');
  if (text.startsWith('[')) return 'json';
  if (text.startsWith('{')) {
    const newline = text.indexOf('\n');
    if (newline > 0) {
      const rest = text.slice(newline + 1).replace(/^\s+/, '');
      try {
        JSON.parse(text.slice(0, newline));
        if (rest === '' || rest.startsWith('{')) return 'ndjson';
      } catch {
        // the first line is not a whole document: a pretty-printed object
      }
    }
    return 'json';
  }
  return 'csv';
}

function headText(head: Buffer): string {
  const bom = bomEncoding(head);
  return new TextDecoder(bom ?? 'utf-8').decode(head);
}

export function parseFormat(value: string): Format {
  const lower = value.toLowerCase();
  if (lower === 'jsonl') return 'ndjson';
  if ((FORMATS as readonly string[]).includes(lower)) return lower as Format;
  throw new CatalogIoError('FORMAT_UNKNOWN', `Unknown format: "${value}"`, { expected: FORMATS.join(', ') });
}
