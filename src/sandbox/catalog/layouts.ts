// Form layouts: `{sections: [{title, rows: [{fields: [...], ...}]}]}`. A PUT replaces the whole
// document; it is checked for shape and for field names the resource actually has.
import type { Layout } from './model.js';

/** Problems with a layout body, as messages naming where they are (empty when valid). */
export function layoutProblems(body: unknown, knownFields: ReadonlySet<string>, where = 'layout'): string[] {
  const problems: string[] = [];
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return [`${where} must be a JSON object with a sections array`];
  const sections = (body as Record<string, unknown>).sections;
  if (!Array.isArray(sections)) return [`${where}.sections must be an array`];
  sections.forEach((section, s) => {
    const at = `${where}.sections[${s}]`;
    if (typeof section !== 'object' || section === null || Array.isArray(section)) {
      problems.push(`${at} must be an object with a title and rows`);
      return;
    }
    const { title, rows } = section as Record<string, unknown>;
    if (typeof title !== 'string') problems.push(`${at}.title must be a string`);
    if (!Array.isArray(rows)) {
      problems.push(`${at}.rows must be an array`);
      return;
    }
    rows.forEach((row, r) => {
      const rowAt = `${at}.rows[${r}]`;
      const fields =
        typeof row === 'object' && row !== null && !Array.isArray(row)
          ? (row as Record<string, unknown>).fields
          : undefined;
      if (!Array.isArray(fields)) {
        problems.push(`${rowAt}.fields must be an array of field names`);
        return;
      }
      fields.forEach((f, k) => {
        if (typeof f !== 'string') problems.push(`${rowAt}.fields[${k}] must be a field name (a string)`);
        else if (!knownFields.has(f)) problems.push(`${rowAt}.fields[${k}]: unknown field '${f}'`);
      });
    });
  });
  return problems;
}

/** A layout listing the given fields, one per row, in one section. */
export function simpleLayout(title: string, fields: string[]): Layout {
  return { sections: [{ title, rows: fields.map((f) => ({ fields: [f] })) }] };
}

export function copyLayout(layout: Layout): Layout {
  return structuredClone(layout);
}
