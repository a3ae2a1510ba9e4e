// The raw loop a careful developer would write for one feed, as a whole process: papaparse in chunk mode -> the same mapping
// (trim, decimal comma, lists split on "|", languages as {culture: value}) -> Ajv with ajv-formats,
// compiled from the pulled `$metadata` schema (read-only fields left out, multilingual fields as objects).
//
//   node bench/_raw-validate.mjs <feed.csv> <schemas dir> '<columns JSON>'
// columns: header -> { field, kind: text|number|integer|list|refs|date|date-time, culture? }
// Prints {"rows":N,"invalid":M}.
import { createReadStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import Papa from 'papaparse';

const [path, schemasDir, columnsJson] = process.argv.slice(2);
const columns = JSON.parse(columnsJson);
const pulled = JSON.parse(readFileSync(join(schemasDir, 'Products.json'), 'utf8')).value;
const base = pulled['x-languages'][0];

const properties = {};
const multilingual = new Set();
for (const [name, schema] of Object.entries(pulled.properties)) {
  if (schema.readOnly) continue;
  if (schema['x-multilingual']) {
    multilingual.add(name);
    const languages = Object.fromEntries(schema['x-languages'].map((l) => [l, schema]));
    properties[name] = { type: 'object', properties: languages, additionalProperties: false };
  } else properties[name] = schema;
}
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const check = ajv.compile({
  type: 'object',
  properties,
  required: [pulled['x-reference']],
  additionalProperties: false,
});

// The fastest plain loop: papaparse in `chunk` mode (an array of rows per chunk of input, not a call per
// row) and cells read by position, the header resolved once to a column plan.
let plan;
let rows = 0;
let invalid = 0;

function resolvePlan(header) {
  return Object.entries(columns).map(([name, { field, kind, culture }]) => ({
    index: header.indexOf(name),
    field,
    kind,
    culture: culture ?? base,
    multilingual: multilingual.has(field),
  }));
}

function checkRow(cells) {
  const body = {};
  let bad = false;
  for (let c = 0; c < plan.length; c += 1) {
    const { index, field, kind, culture } = plan[c];
    const text = index < 0 ? '' : (cells[index] ?? '').trim();
    if (text === '') continue;
    let value;
    if (kind === 'number' || kind === 'integer') {
      const n = Number(text.replace(',', '.'));
      value = Number.isNaN(n) ? text : n;
    } else if (kind === 'list' || kind === 'refs') {
      value = text
        .split('|')
        .map((s) => s.trim())
        .filter((s) => s !== '');
      if (kind === 'refs') {
        if (value.length === 0) bad = true;
        continue;
      }
    } else value = text;
    if (plan[c].multilingual) {
      body[field] ??= {};
      body[field][culture] = value;
    } else body[field] = value;
  }
  if (!check(body) || bad) invalid += 1;
}

Papa.parse(createReadStream(path, { highWaterMark: 1 << 20 }), {
  skipEmptyLines: true,
  chunk: ({ data }) => {
    let first = 0;
    if (plan === undefined) {
      plan = resolvePlan(data[0]);
      first = 1;
    }
    for (let i = first; i < data.length; i += 1) checkRow(data[i]);
    rows += data.length - first;
  },
  complete: () => process.stdout.write(`${JSON.stringify({ rows, invalid })}\n`),
  error: (err) => {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  },
});
