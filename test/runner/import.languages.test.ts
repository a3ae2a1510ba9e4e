// Comparing a record in L languages costs L lookups per 100 refs (the spec serves one culture per
// request), and no more: references the base-language lookup did not find are never asked for in
// the other cultures. Request counts from the sandbox's counters.
import { describe, expect, it } from 'vitest';
import { importFile } from '../../src/runner/import/run.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { useSandbox } from '../helpers/sandbox.js';
import { connectTo, resetStats, stats, tempDir, writeFeed } from './import.support.js';

const fixture = useSandbox({ seed: 'empty' });

async function importCounted(sb: SandboxHandle, source: string) {
  const connection = await connectTo(sb);
  try {
    const model = await connection.tenant.model();
    await resetStats(sb);
    const summary = await importFile({
      source,
      profile: { entity: 'products' },
      model,
      catalog: connection.catalog,
      dam: () => connection.dam,
      concurrency: 8,
    });
    return { summary, requests: await stats(sb) };
  } finally {
    await connection.close();
  }
}

function feed(count: number): string {
  const lines = ['prod_ref,prod_title,prod_title_fr,prod_title_es'];
  for (let i = 0; i < count; i++) lines.push(`LG-${i},Chair ${i},Chaise ${i},Silla ${i}`);
  return `${lines.join('\n')}\n`;
}

describe('lookups per language', () => {
  it('asks the other cultures only for the references the base-language lookup found', async () => {
    const { sb } = fixture;
    const dir = tempDir('import-languages');
    // 150 exist; then a feed of 300 of which the last 150 are new, in batches of 100:
    // batch 1 all exist, batch 2 half, batch 3 none.
    await importCounted(sb, await writeFeed(dir, 'first.csv', feed(150)));
    const { summary, requests } = await importCounted(sb, await writeFeed(dir, 'second.csv', feed(300)));
    expect(summary.outcomes.unchanged).toBe(150);
    expect(summary.outcomes.created).toBe(150);
    expect(requests.byMethod.POST).toBe(150);
    // 3 base-language lookups + fr and es for batches 1 and 2 only.
    expect(requests.byMethod.GET).toBe(3 + 2 * 2);
  });
});
