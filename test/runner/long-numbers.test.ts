// A feed's bare number a double would change, end to end (validate, import --plan, import through the CLI
// against a sandbox): as a reference (a string field) it is written with the digits of the file; in a
// number field the row is an error naming the item and the field, never another number written.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Trial, trialSteps, tryFeed } from '../helpers/feed-trial.js';
import { call, useSandbox } from '../helpers/sandbox.js';

const fixture = useSandbox({ seed: 'empty' });
let json: Trial;
let ndjson: Trial;

const records = (prefix: string) => [
  `{"prod_ref": ${prefix}345678901234567890, "prod_title": "Pan", "prod_pack_size": 6}`,
  `{"prod_ref": "${prefix}-2", "prod_title": "Lid", "prod_pack_size": 9007199254740993}`,
  `{"prod_ref": "${prefix}-3", "prod_title": "Pot", "prod_weight": 1.0000000000000000001}`,
  `{"prod_ref": ${prefix}007199254740993, "prod_title": "Wok"}`,
];

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'long-numbers-'));
  const flags = { dir, profile: false as const, feed: ['--entity', 'products'] };
  const jsonFeed = join(dir, 'feed.json');
  await writeFile(jsonFeed, `[\n${records('12').join(',\n')}\n]\n`);
  json = await tryFeed(fixture.sb, jsonFeed, flags);
  const ndjsonFeed = join(dir, 'feed.ndjson');
  await writeFile(ndjsonFeed, `${records('34').join('\n')}\n`);
  ndjson = await tryFeed(fixture.sb, ndjsonFeed, flags);
}, 120_000);

describe('a bare number a double would change', () => {
  for (const [format, prefix, where] of [
    ['JSON', '12', 'item'],
    ['NDJSON', '34', 'line'],
  ] as const) {
    it(`${format}: a reference keeps its digits; a number field says it cannot be written exactly`, async () => {
      const trial = format === 'JSON' ? json : ndjson;
      for (const [name, step] of Object.entries(trialSteps(trial))) {
        expect(step.code, `${name}: ${step.stderr.join('\n')}`).toBe(1);
        const at = (n: number) => step.lines.find((l) => l.location === `${where} ${n}`);
        expect(at(1)?.ref, name).toBe(`${prefix}345678901234567890`);
        expect(at(1)?.outcome, name).not.toBe('invalid');
        expect(at(4)?.ref, name).toBe(`${prefix}007199254740993`);
        expect(at(2), name).toMatchObject({
          outcome: 'invalid',
          field: 'prod_pack_size',
          value: '9007199254740993',
        });
        expect(at(2)?.message, name).toBe(
          'column "prod_pack_size": must be a whole number of at most 15 significant digits (this one cannot be written exactly: past 2^53, it would become 9007199254740992), got "9007199254740993"',
        );
        expect(at(3), name).toMatchObject({ outcome: 'invalid', field: 'prod_weight' });
        expect(at(3)?.message, name).toContain('cannot be written exactly: it would become 1)');
      }
      expect(trial.imported.lines.find((l) => l.location === `${where} 1`)?.outcome).toBe('created');
      const written = await call(
        fixture.sb.catalogUrl,
        `/Products?$filter=${encodeURIComponent(`prod_ref eq '${prefix}345678901234567890'`)}`,
        { key: fixture.sb.apiKey },
      );
      expect((written.body as { value: Array<{ prod_ref: string }> }).value.map((p) => p.prod_ref)).toEqual([
        `${prefix}345678901234567890`,
      ]);
    });
  }
});
