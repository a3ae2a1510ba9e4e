// A list in one cell (tags, category refs, image names): items joined by a separator (`|` by default), one
// rule for the export that writes such cells and the import that reads them. An item may itself hold the
// separator (the service allows `|` in a tag or a ref): the export writes it as `\|`, and a backslash
// that would read as such an escape as `\\`, so every list comes back exactly. Any other backslash is
// plain text, so a supplier's `C:\images\a.jpg` reads as written.

const BACKSLASH = 92;

/** A list's items as one cell: `["x|y", "z"]` -> `x\|y|z`. */
export function joinItems(items: ReadonlyArray<string | number>, separator: string): string {
  let out = '';
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out += separator;
    const item = items[i];
    out += typeof item === 'string' ? escapeItem(item, separator) : String(item);
  }
  return out;
}

function escapeItem(item: string, separator: string): string {
  if (!item.includes(separator) && !item.includes('\\')) return item;
  let out = '';
  for (let i = 0; i < item.length; ) {
    if (item.startsWith(separator, i)) {
      out += `\\${separator}`;
      i += separator.length;
      continue;
    }
    const c = item.charCodeAt(i);
    // A backslash before another, before the separator or at the item's end (the separator follows).
    if (
      c === BACKSLASH &&
      (i + 1 === item.length || item.charCodeAt(i + 1) === BACKSLASH || item.startsWith(separator, i + 1))
    )
      out += '\\\\';
    else out += item[i];
    i += 1;
  }
  return out;
}

/** A cell's items as written (not trimmed): `x\|y|z` -> `["x|y", "z"]`. */
export function splitItems(text: string, separator: string): string[] {
  if (!text.includes('\\') || separator.includes('\\')) return text.split(separator);
  const items: string[] = [];
  let item = '';
  let from = 0;
  for (let i = 0; i < text.length; ) {
    if (text.charCodeAt(i) === BACKSLASH) {
      if (text.startsWith(separator, i + 1)) {
        item += text.slice(from, i) + separator;
        i += 1 + separator.length;
        from = i;
      } else if (text.charCodeAt(i + 1) === BACKSLASH) {
        item += text.slice(from, i + 1);
        i += 2;
        from = i;
      } else i += 1;
      continue;
    }
    if (text.startsWith(separator, i)) {
      items.push(item + text.slice(from, i));
      item = '';
      i += separator.length;
      from = i;
      continue;
    }
    i += 1;
  }
  items.push(item + text.slice(from));
  return items;
}
