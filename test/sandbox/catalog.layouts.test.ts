// Form layouts: GET and PUT (full replacement) where a layout exists, 404 where none does, and the
// body checked as {sections: [{title, rows: [{fields: [...]}]}]}.
import { describe, expect, it } from 'vitest';
import { catalogSandbox, expectProblem, failuresOf } from './catalog.fixtures.js';

const { client } = catalogSandbox();

describe('layouts', () => {
  it('GET /Categories/layout answers the category form layout', async () => {
    const r = await client.get('/Categories/layout');
    expect(r.status).toBe(200);
    const layout = r.body as { sections: Array<{ title: string; rows: Array<{ fields: string[] }> }> };
    expect(layout.sections[0]!.title).toBe('General');
    expect(layout.sections[0]!.rows[0]!.fields).toEqual(['cat_ref', 'cat_title']);
  });

  it('PUT /Categories/layout replaces the whole layout (no merge) and answers 204', async () => {
    const next = { sections: [{ title: 'Only', rows: [{ fields: ['cat_title'], width: 'half' }] }] };
    const r = await client.send('PUT', '/Categories/layout', next);
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expect((await client.get('/Categories/layout')).body).toEqual(next);
  });

  it('a layout body of the wrong shape or naming unknown fields is a 400 keyed by layout', async () => {
    failuresOf(await client.send('PUT', '/Categories/layout', { sections: 'none' }), 'layout');
    failuresOf(await client.send('PUT', '/Categories/layout', { sections: [{ rows: [] }] }), 'layout');
    failuresOf(
      await client.send('PUT', '/Categories/layout', { sections: [{ title: 'x', rows: [{ cells: [] }] }] }),
      'layout',
    );
    const f = failuresOf(
      await client.send('PUT', '/Categories/layout', {
        sections: [{ title: 'x', rows: [{ fields: ['prod_ref'] }] }],
      }),
      'layout',
    );
    expect(f[0]!.ErrorMessage).toBe("layout.sections[0].rows[0].fields[0]: unknown field 'prod_ref'");
    failuresOf(await client.send('PUT', '/Categories/layout', [1]), 'layout');
  });

  it("GET and PUT /CustomEntities('<denominator>')/layout work where the type has a layout", async () => {
    const path = "/CustomEntities('Store%20Locations')/layout";
    const r = await client.get(path);
    expect(r.status).toBe(200);
    expect((r.body as { sections: unknown[] }).sections).toHaveLength(2);
    const next = { sections: [{ title: 'Store', rows: [{ fields: ['ce_name', 'ce_city'] }] }] };
    expect((await client.send('PUT', path, next)).status).toBe(204);
    expect((await client.get(path)).body).toEqual(next);
    failuresOf(
      await client.send('PUT', path, { sections: [{ title: 'x', rows: [{ fields: ['cat_ref'] }] }] }),
      'layout',
    );
  });

  it('a type without a layout answers 404 to GET and PUT', async () => {
    const path = "/CustomEntities('Suppliers')/layout";
    expectProblem(await client.get(path), 404);
    expectProblem(await client.send('PUT', path, { sections: [] }), 404);
    expectProblem(await client.get('/Products/layout'), 404);
  });
});
