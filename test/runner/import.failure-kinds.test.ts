// The summary's most frequent problems count equal service failures together: 30 rows refused with one
// 403 are one kind counted 30 times, not ten kinds counted once (each message names its record and the
// request's id, which the kind leaves out). Real HTTP to a sandbox; a read-only key refuses the writes.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import { createMapper } from '../../src/mappers/mapper.js';
import { failure } from '../../src/runner/import/outcome.js';
import { useSandbox } from '../helpers/sandbox.js';
import { demoModel } from '../mappers/demo-model.js';
import { row } from '../mappers/rows.js';
import { importWith, tempDir, writeFeed } from './import.support.js';

const fixture = useSandbox({ seed: 'empty' });

describe('failure kinds', () => {
  it('30 writes refused alike are one problem counted 30 times', async () => {
    const dir = tempDir('failure-kinds');
    const rows = ['prod_ref,prod_title'];
    for (let i = 1; i <= 30; i++) rows.push(`FK-${i},Item ${i}`);
    const feed = await writeFeed(dir, 'feed.csv', rows.join('\n'));
    expect((await importWith(fixture.sb, feed)).outcomes.created).toBe(30);
    // Every record changed: 30 PATCHes, each to its own address, each refused.
    const changed = await writeFeed(dir, 'changed.csv', rows.join('\n').replaceAll('Item', 'Renamed'));
    const readOnly = { ...fixture.sb, apiKey: fixture.sb.readOnlyKey };
    const summary = await importWith(readOnly, changed);
    expect(summary.outcomes.failed).toBe(30);
    expect(summary.topErrors).toHaveLength(1);
    expect(summary.topErrors[0]).toMatchObject({ count: 30 });
    expect(summary.topErrors[0]!.message).toMatch(/^API_FORBIDDEN: Catalog API PATCH failed \(403\)/);
  });

  it("a refusal that names the row's own values is one kind, whatever the values", () => {
    const mapper = createMapper({ model: demoModel(), profile: { entity: 'products' }, strict: false });
    const kinds = ['QA-000001', 'QA-000002'].map((ref) => {
      const draft = mapper.map(row({ prod_ref: ref, prod_title: 'Item' })).drafts[0]!;
      const refused = new ApiError('API_VALIDATION', 'refused', {
        service: 'Catalog API',
        method: 'POST',
        path: '/Products',
        status: 400,
        failures: [{ field: 'prod_ref', message: `Reference '${ref}' already exists (id 12)` }],
      });
      return failure(draft, refused).kind;
    });
    expect(kinds[0]).toBe(kinds[1]);
    expect(kinds[0]).toContain("prod_ref: Reference '…' already exists (id N)");
  });
});
