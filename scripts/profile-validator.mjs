// Compiles the profile schema (schemas/profile.schema.json) once, at build time, into
// dist/profile-validator.cjs with Ajv's standalone code: a run then loads a ready function instead of
// compiling the schema (about 30 ms of every command that reads a profile). The module carries the
// schema text it was made from; src/mappers/profile.ts uses it only while that text is the shipped one.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';

const text = readFileSync('schemas/profile.schema.json', 'utf8');
// The options of profile.ts: the same errors, in the same order.
const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false, code: { source: true } });
const validate = ajv.compile(JSON.parse(text));
mkdirSync('dist', { recursive: true });
writeFileSync(
  'dist/profile-validator.cjs',
  `${standaloneCode.default(ajv, validate)}\nmodule.exports.schemaText = ${JSON.stringify(text)};\n`,
);
