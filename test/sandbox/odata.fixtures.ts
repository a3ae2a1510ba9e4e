// Query schemas shaped like the three kinds of resources that use the engine: a catalog entity
// (case-sensitive, multilingual), a changelog (restricted operators, `requires`) and the DAM image
// list (case-insensitive names).

import { expect } from 'vitest';
import { ODataError, type QueryField, type QuerySchema } from '../../src/sandbox/odata/index.js';

function field(name: string, type: QueryField['type'], extra: Partial<QueryField> = {}): QueryField {
  return { name, type, ...extra };
}

function fieldMap(fields: QueryField[], lowerCaseKeys = false): Map<string, QueryField> {
  return new Map(fields.map((f) => [lowerCaseKeys ? f.name.toLowerCase() : f.name, f]));
}

export const productSchema: QuerySchema = {
  fields: fieldMap([
    field('prod_id', 'integer'),
    field('prod_ref', 'string'),
    field('prod_title', 'string', { multilingual: true }),
    field('prod_title_short', 'string'),
    field('prod_desc', 'string', { multilingual: true, sortable: false }),
    field('prod_price', 'number'),
    field('prod_active', 'boolean'),
    field('prod_release', 'date'),
    field('prod_created', 'date-time'),
    field('prod_tags', 'string[]'),
    field('prod_sizes', 'integer[]'),
    field('prod_secret', 'string', { selectable: false }),
    field('typ_id', 'integer'),
  ]),
  languages: ['en', 'fr', 'fr-CA', 'zh_Hans'],
  typeName: 'Product',
};

export const changelogSchema: QuerySchema = {
  fields: fieldMap([
    field('id', 'integer'),
    field('item_id', 'integer'),
    field('modified_at', 'date-time'),
    field('author_type', 'string', { operators: ['eq'], sortable: false }),
    field('author_id', 'integer', { requires: 'author_type', sortable: false }),
    field('attribute_id', 'string', { operators: ['eq'], sortable: false }),
  ]),
  languages: [],
  unknownPropertyMessage: (name) => `Unknown property: '${name}'`,
};

export const imageSchema: QuerySchema = {
  fields: fieldMap(
    [
      field('id', 'integer'),
      field('reference', 'string'),
      field('numLinks', 'integer'),
      field('status', 'string'),
      field('modifiedOn', 'date-time'),
      field('fileType', 'string'),
      field('createdOn', 'date-time'),
    ],
    true,
  ),
  languages: [],
  caseInsensitive: true,
};

/** Runs `fn`, expects an ODataError and returns it for further checks. */
export function expectODataError(
  fn: () => unknown,
  expected: { parameter?: string; propertyName?: string } = {},
): ODataError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(ODataError);
  const error = caught as ODataError;
  if (expected.parameter) expect(error.parameter).toBe(expected.parameter);
  if (expected.propertyName) expect(error.propertyName).toBe(expected.propertyName);
  expect(error.message.length).toBeGreaterThan(0);
  return error;
}

/** Reads plain object records: the culture-specific value lives under `<field>_<culture>`. */
export function plainAccessor(
  record: Record<string, unknown>,
  name: string,
  culture: string | undefined,
): unknown {
  return culture === undefined ? record[name] : record[`${name}_${culture}`];
}
