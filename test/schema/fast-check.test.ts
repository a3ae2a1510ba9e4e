// The validator's fast check may only say "valid" when Ajv agrees: random drafts over the demo tenant's
// entities, with values of every shape (right, wrong, too long, null, lists), compared with Ajv's verdict.
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FieldValue } from '../../src/mappers/types.js';
import { writeBody } from '../../src/schema/validator.js';
import { buildFastCheck, buildWriteSchema, type WriteMode } from '../../src/schema/write-schema.js';
import { demoModel } from '../mappers/demo-model.js';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const model = demoModel();
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv, ['date', 'date-time']);
const dateTest = (format: string) => {
  const f = ajv.formats[format] as { validate: (s: string) => boolean };
  return (text: string) => f.validate(text) === true;
};

const scalar = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.string({ minLength: 60, maxLength: 300 }),
  fc.constantFrom('2025-02-28', '2025-02-30', '2025-01-01T10:00:00Z', 'x', '', 'In Stock', 'in stock'),
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.constant(null),
);
const value: fc.Arbitrary<FieldValue> = fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }));

describe('fast write-schema check', () => {
  for (const entity of model.entities) {
    for (const mode of ['create', 'upsert'] as WriteMode[]) {
      it(`never accepts a ${entity.name} body that Ajv refuses (${mode})`, () => {
        const names = [...entity.fields.map((f) => f.name), 'not_a_field'];
        const cultures = [model.baseLanguage, ...model.languages, 'xx'];
        const ajvCheck = ajv.compile(buildWriteSchema(entity, model, mode));
        const fast = buildFastCheck(entity, model, mode, dateTest);
        let accepted = 0;
        fc.assert(
          fc.property(
            fc.dictionary(fc.constantFrom(...names), value, { maxKeys: 6 }),
            // Most drafts carry no other language: weighted so some random drafts are valid in every run.
            fc.oneof(
              { weight: 3, arbitrary: fc.constant({}) },
              {
                weight: 2,
                arbitrary: fc.dictionary(
                  fc.constantFrom(...cultures),
                  fc.dictionary(fc.constantFrom(...names), value),
                ),
              },
            ),
            fc.boolean(),
            (random, byCulture, withRef) => {
              // Most real drafts carry their ref: with it, the fast check has something to accept.
              const fields = withRef ? { [entity.refField]: 'R-1', ...random } : random;
              const draft = { entity: entity.name, fields, cultures: byCulture };
              if (!fast(fields, byCulture)) return;
              accepted += 1;
              const body = writeBody(draft as never, model);
              expect(ajvCheck(body), JSON.stringify(body)).toBe(true);
            },
          ),
          { numRuns: 600 },
        );
        // The property is not vacuous: a ref-only upsert is accepted, and so were some random drafts.
        if (mode === 'upsert') {
          expect(fast({ [entity.refField]: 'R-1' }, {})).toBe(true);
          expect(accepted).toBeGreaterThan(0);
        }
      });
    }
  }
});
