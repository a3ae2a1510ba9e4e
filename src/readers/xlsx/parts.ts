// The workbook parts a sheet's cells refer to: which sheets there are (names in workbook order, where
// each one's XML is), the shared strings, which cell styles show dates, and the date system.

import { posix } from 'node:path';
import { decodeXlsxText } from '../../writers/xlsx-text.js';
import { localName, readXml } from './xml.js';

/** A sheet of the workbook, in the workbook's order. */
export interface SheetPart {
  name: string;
  /** Its XML's path in the zip (`xl/worksheets/sheet1.xml`). */
  path: string;
}

export interface WorkbookPart {
  sheets: SheetPart[];
  date1904: boolean;
  /** Where the shared strings and the styles are, when the workbook has them. */
  sharedStrings?: string;
  styles?: string;
}

/** A relationships part's targets by id: where each related part is in the zip, and its type. */
export type Relationships = Map<string, { type: string; path: string }>;

/** An attribute by its local name (`r:id`, or the same under another prefix). */
function attribute(attributes: Record<string, string>, local: string): string | undefined {
  for (const [name, value] of Object.entries(attributes)) if (localName(name) === local) return value;
  return undefined;
}

/** A relationships part (`_rels/.rels`, `xl/_rels/workbook.xml.rels`): id -> target path in the zip. */
export async function readRelationships(
  chunks: AsyncIterable<Buffer | string>,
  partPath: string,
): Promise<Relationships> {
  // Targets are relative to the folder of the part the relationships belong to.
  const base = posix.dirname(posix.dirname(partPath));
  const relationships: Relationships = new Map();
  await readXml(chunks, {
    open(name, attributes) {
      if (name !== 'Relationship') return;
      const { Id, Type, Target, TargetMode } = attributes;
      if (!Id || !Target || TargetMode === 'External') return;
      const path = Target.startsWith('/') ? Target.slice(1) : posix.normalize(posix.join(base, Target));
      relationships.set(Id, { type: Type ?? '', path });
    },
  });
  return relationships;
}

/** The part of `rels` whose type ends with `/kind` (`officeDocument`, `sharedStrings`, `styles`). */
export function partOfType(rels: Relationships, kind: string): string | undefined {
  for (const { type, path } of rels.values()) if (type.endsWith(`/${kind}`)) return path;
  return undefined;
}

/** `xl/workbook.xml`: the sheets in order (their paths through the workbook's relationships), the date system. */
export async function readWorkbook(
  chunks: AsyncIterable<Buffer | string>,
  rels: Relationships,
): Promise<WorkbookPart> {
  const sheets: SheetPart[] = [];
  let date1904 = false;
  await readXml(chunks, {
    open(name, attributes) {
      if (name === 'workbookPr') {
        const value = attributes.date1904;
        date1904 = value === '1' || value === 'true';
      } else if (name === 'sheet') {
        const id = attribute(attributes, 'id');
        const path = id ? rels.get(id)?.path : undefined;
        if (path) sheets.push({ name: attributes.name ?? `Sheet${sheets.length + 1}`, path });
      }
    },
  });
  const sharedStrings = partOfType(rels, 'sharedStrings');
  const styles = partOfType(rels, 'styles');
  return {
    sheets,
    date1904,
    ...(sharedStrings && { sharedStrings }),
    ...(styles && { styles }),
  };
}

/** `xl/sharedStrings.xml`: each string's text (the runs of a rich text joined, phonetic guides left out). */
export async function readSharedStrings(chunks: AsyncIterable<Buffer | string>): Promise<string[]> {
  const strings: string[] = [];
  let text = '';
  let inText = false;
  let inPhonetic = false;
  await readXml(chunks, {
    open(name) {
      if (name === 'si') text = '';
      else if (name === 'rPh') inPhonetic = true;
      else if (name === 't' && !inPhonetic) inText = true;
    },
    close(name) {
      if (name === 't') inText = false;
      else if (name === 'rPh') inPhonetic = false;
      else if (name === 'si') strings.push(decodeXlsxText(text));
    },
    text(value) {
      if (inText) text += value;
    },
  });
  return strings;
}

/**
 * Excel's built-in number formats that show dates or times (14-22, 45-47, and the East Asian ones
 * 27-36 and 50-58): workbooks refer to them by number without writing their format.
 */
function builtInDate(id: number): boolean {
  return (id >= 14 && id <= 22) || (id >= 27 && id <= 36) || (id >= 45 && id <= 47) || (id >= 50 && id <= 58);
}

/** `xl/styles.xml`: per cell style (a cell's `s`), whether its number format shows a date or a time. */
export async function readDateStyles(
  chunks: AsyncIterable<Buffer | string>,
): Promise<(style: number) => boolean> {
  const custom = new Map<number, string>();
  const styleFormats: number[] = [];
  let inCellXfs = false;
  await readXml(chunks, {
    open(name, attributes) {
      if (name === 'numFmt') {
        const id = Number(attributes.numFmtId);
        if (Number.isInteger(id) && attributes.formatCode !== undefined)
          custom.set(id, attributes.formatCode);
      } else if (name === 'cellXfs') inCellXfs = true;
      else if (name === 'xf' && inCellXfs) styleFormats.push(Number(attributes.numFmtId ?? 0));
    },
    close(name) {
      if (name === 'cellXfs') inCellXfs = false;
    },
  });
  const dates = styleFormats.map((id) => {
    const format = custom.get(id);
    return format !== undefined ? isDateFormat(format) : builtInDate(id);
  });
  return (style) => dates[style] === true;
}

/**
 * A number format that shows a date or a time: y m d h s (either case, as Excel reads them) outside
 * quoted text, `[...]` sections (colours, locales) and escaped characters.
 */
export function isDateFormat(format: string | undefined): boolean {
  if (!format) return false;
  const bare = format
    .replace(/\[[^\]]*]/g, '')
    .replace(/"[^"]*"/g, '')
    .replace(/\\./g, '')
    .replace(/general/gi, '');
  return /[ymdhsb]/i.test(bare);
}
