// Error construction shared by every query option. Messages follow the wording of an OData service:
// a fixed lead sentence, then what was expected and what was found.

import { ODataError, type QuerySchema } from './types.js';

export const INVALID_QUERY = 'The query specified in the URI is not valid.';

/** Shortens long client text so a message stays readable. */
export function quoteText(text: string, max = 80): string {
  return `'${text.length > max ? `${text.slice(0, max)}...` : text}'`;
}

/** A grammar error: where it happened and what was there. */
export function syntaxError(parameter: string, text: string, position: number, detail: string): ODataError {
  return new ODataError(
    parameter,
    `${INVALID_QUERY} Syntax error at position ${position} in ${quoteText(text)}: ${detail}`,
    parameter,
    text,
  );
}

/** A well-formed option that names or uses a property wrongly. */
export function propertyError(parameter: string, text: string, property: string, detail: string): ODataError {
  return new ODataError(parameter, `${INVALID_QUERY} ${detail}`, property, text);
}

export function unknownPropertyError(
  parameter: string,
  text: string,
  name: string,
  schema: QuerySchema,
): ODataError {
  if (schema.unknownPropertyMessage) {
    return new ODataError(parameter, schema.unknownPropertyMessage(name), name, text);
  }
  const onType = schema.typeName ? ` on type '${schema.typeName}'` : '';
  return propertyError(parameter, text, name, `Could not find a property named '${name}'${onType}.`);
}

export function nestedPropertyError(parameter: string, text: string, path: string): ODataError {
  const what = parameter === '$filter' ? 'Filtering on' : `Using in ${parameter}`;
  return propertyError(
    parameter,
    text,
    path,
    `${what} properties of embedded resources is not supported: found '${path}'; only properties of the root resource can be used.`,
  );
}
