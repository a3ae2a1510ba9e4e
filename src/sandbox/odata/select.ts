// $select: comma-separated names of root-resource properties; `*` selects every selectable one.

import { lookupExact } from './fields.js';
import { nestedPropertyError, propertyError, syntaxError, unknownPropertyError } from './messages.js';
import type { QuerySchema } from './types.js';

const PARAMETER = '$select';

export function parseSelect(text: string, schema: QuerySchema): string[] {
  const selected = new Set<string>();
  let offset = 0;
  for (const raw of text.split(',')) {
    const name = raw.trim();
    const position = offset + raw.indexOf(name);
    offset += raw.length + 1;
    if (name === '')
      throw syntaxError(PARAMETER, text, position, 'expected a property name between the commas.');
    if (name === '*') {
      for (const field of schema.fields.values()) if (field.selectable !== false) selected.add(field.name);
      continue;
    }
    if (name.includes('/')) throw nestedPropertyError(PARAMETER, text, name);
    if (/\s/.test(name)) {
      throw syntaxError(
        PARAMETER,
        text,
        position,
        `expected a property name, found '${name}'; separate properties with commas.`,
      );
    }
    const field = lookupExact(name, schema);
    if (!field) throw unknownPropertyError(PARAMETER, text, name, schema);
    if (field.selectable === false) {
      throw propertyError(PARAMETER, text, name, `The property '${name}' cannot be used in $select.`);
    }
    selected.add(field.name);
  }
  return [...selected];
}
