// The workbook parts a sheet's cells refer to, read with saxes: which sheets there are (names in workbook
// order, where each one's XML is), the shared strings, the number formats of the cell styles (to tell a
// date from a number) and the date system.
import { posix } from 'node:path';
import { SaxesParser, type SaxesTagPlain } from 'saxes';

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

type Tag = { name: string; attributes: Record<string, string> };

/** Runs the handlers over an XML part; a malformed part is an error (the caller names the file). */
export async function readXml(
  chunks: AsyncIterable<Buffer | string>,
  on: { open?(tag: Tag): void; close?(name: string): void; text?(text: string): void },
): Promise<void> {
  const parser = new SaxesParser({ position: false });
  let failure: Error | undefined;
  parser.on('error', (err) => {
    failure ??= err;
  });
  if (on.open) {
    const open = on.open;
    parser.on('opentag', (tag) => {
      const plain = tag as SaxesTagPlain;
      open({ name: localName(plain.name), attributes: plain.attributes });
    });
  }
  if (on.close) {
    const close = on.close;
    parser.on('closetag', (tag) => close(localName(tag.name)));
  }
  if (on.text) {
    parser.on('text', on.text);
    parser.on('cdata', on.text);
  }
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of chunks) {
    parser.write(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    if (failure) throw failure;
  }
  parser.write(decoder.decode());
  parser.close();
  if (failure) throw failure;
}

/** `x:row` -> `row`: some writers prefix SpreadsheetML's names. */
export function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

/** An attribute by its local name (`r:id`, or the same under another prefix). */
function attribute(tag: Tag, local: string): string | undefined {
  for (const [name, value] of Object.entries(tag.attributes)) if (localName(name) === local) return value;
  return undefined;
}

/** A relationships part (`_rels/.rels`, `xl/_rels/workbook.xml.rels`): id -> target path in the zip. */
export async function readRelationships(
  chunks: AsyncIterable<Buffer | string>,
  partPath: string,
): Promise<Map<string, { type: string; path: string }>> {
  // Targets are relative to the folder of the part the relationships belong to.
  const base = posix.dirname(posix.dirname(partPath));
  const relationships = new Map<string, { type: string; path: string }>();
  await readXml(chunks, {
    open(tag) {
      if (tag.name !== 'Relationship') return;
      const { Id, Type, Target, TargetMode } = tag.attributes;
      if (!Id || !Target || TargetMode === 'External') return;
      const path = Target.startsWith('/') ? Target.slice(1) : posix.normalize(posix.join(base, Target));
      relationships.set(Id, { type: Type ?? '', path });
    },
  });
  return relationships;
}

/** The part of `rels` whose type ends with `/kind` (`officeDocument`, `sharedStrings`, `styles`). */
export function partOfType(
  rels: Map<string, { type: string; path: string }>,
  kind: string,
): string | undefined {
  for (const { type, path } of rels.values()) if (type.endsWith(`/${kind}`)) return path;
  return undefined;
}

/** `xl/workbook.xml`: the sheets in order (their paths through the workbook's relationships), the date system. */
export async function readWorkbook(
  chunks: AsyncIterable<Buffer | string>,
  rels: Map<string, { type: string; path: string }>,
): Promise<WorkbookPart> {
  const sheets: SheetPart[] = [];
  let date1904 = false;
  await readXml(chunks, {
    open(tag) {
      if (tag.name === 'workbookPr') {
        const value = tag.attributes.date1904;
        date1904 = value === '1' || value === 'true';
      } else if (tag.name === 'sheet') {
        const id = attribute(tag, 'id');
        const path = id ? rels.get(id)?.path : undefined;
        if (path) sheets.push({ name: tag.attributes.name ?? `Sheet${sheets.length + 1}`, path });
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
    open(tag) {
      if (tag.name === 'si') text = '';
      else if (tag.name === 'rPh') inPhonetic = true;
      else if (tag.name === 't' && !inPhonetic) inText = true;
    },
    close(name) {
      if (name === 't') inText = false;
      else if (name === 'rPh') inPhonetic = false;
      else if (name === 'si') strings.push(text);
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

/** `xl/styles.xml`: per cell style (`s`), its number format's code. */
export async function readNumberFormats(
  chunks: AsyncIterable<Buffer | string>,
): Promise<(style: number) => string | undefined> {
  const custom = new Map<number, string>();
  const styleFormats: number[] = [];
  let inCellXfs = false;
  await readXml(chunks, {
    open(tag) {
      if (tag.name === 'numFmt') {
        const id = Number(tag.attributes.numFmtId);
        if (Number.isInteger(id) && tag.attributes.formatCode !== undefined)
          custom.set(id, tag.attributes.formatCode);
      } else if (tag.name === 'cellXfs') inCellXfs = true;
      else if (tag.name === 'xf' && inCellXfs) styleFormats.push(Number(tag.attributes.numFmtId ?? 0));
    },
    close(name) {
      if (name === 'cellXfs') inCellXfs = false;
    },
  });
  return (style) => {
    const id = styleFormats[style];
    if (id === undefined || Number.isNaN(id)) return undefined;
    // A built-in date format stands for itself: any date code says "date".
    return custom.get(id) ?? (builtInDate(id) ? 'yyyy-mm-dd' : undefined);
  };
}
