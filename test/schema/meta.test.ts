// The profile schema we ship and the write-schemas we build are compiled at run time without checking
// them against the JSON Schema meta-schema (that check is a fifth of the start-up): it is done here.
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { profileSchemaPath } from '../../src/mappers/profile.js';
import { buildWriteSchema } from '../../src/schema/write-schema.js';
import { demoModel } from '../mappers/demo-model.js';

describe('schemas compiled without the meta-schema check', () => {
  const ajv = new Ajv({ strict: false });

  it('the shipped profile schema is a valid JSON Schema', () => {
    const schema = JSON.parse(readFileSync(profileSchemaPath(), 'utf8'));
    expect(ajv.validateSchema(schema), ajv.errorsText()).toBe(true);
  });

  it('every write-schema of the demo tenant is a valid JSON Schema', () => {
    const model = demoModel();
    expect(model.entities.length).toBeGreaterThan(2);
    for (const entity of model.entities)
      for (const mode of ['create', 'upsert'] as const) {
        const schema = buildWriteSchema(entity, model, mode);
        expect(ajv.validateSchema(schema), `${entity.name} ${mode}: ${ajv.errorsText()}`).toBe(true);
      }
  });
});
