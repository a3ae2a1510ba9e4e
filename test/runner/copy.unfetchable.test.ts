// A source tenant's asset whose URL the target's DAM cannot fetch (a supplier's dead CDN link): its line
// fails with the DAM's reason, everything else is copied, the copy exits 1, and the next `--since` copy
// tries that asset again (the mark does not move past a failed line).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import { copySideFlags, useCliFolder } from '../helpers/cli-main.js';
import { call, useSandbox, useTargetSandbox } from '../helpers/sandbox.js';

// The source fetched the CDN's file (a generated one); the target's DAM cannot reach that host.
const source = useSandbox({ seed: 'demo', remoteAssets: 'synthetic' });
const target = useTargetSandbox(source);
useCliFolder('copy-dead-url');

const side = copySideFlags;

interface CopyJson {
  steps: Array<{ step: string; rows: number; outcomes: Record<string, number>; report?: string }>;
  exitCode: number;
}

async function copy(extra: string[] = []): Promise<{ code: number; result: CopyJson }> {
  const out = memoryOutput();
  const code = await main(
    ['copy', ...side('from', source.sb), ...side('to', target.sb), '--json', ...extra],
    out,
  );
  expect(out.stdout, out.stderr.join('\n')).toHaveLength(1);
  return { code, result: JSON.parse(out.stdout[0]!) as CopyJson };
}

describe('copy with an asset the target cannot fetch', () => {
  it('fails that line alone, exits 1, and the next --since copy tries it again', async () => {
    const dead = 'https://cdn.example.com/media/dead-link.jpg';
    const registered = await call(source.sb.damUrl, '/images', {
      method: 'POST',
      key: source.sb.apiKey,
      body: { url: dead },
    });
    expect(registered.status, registered.text).toBe(201);

    const first = await copy();
    expect(first.code).toBe(1);
    expect(first.result.exitCode).toBe(1);
    const steps = Object.fromEntries(first.result.steps.map((s) => [s.step, s]));
    expect(steps.assets!.outcomes.failed).toBe(1);
    expect(steps.assets!.outcomes.created).toBeGreaterThan(0);
    // The records after it were copied all the same.
    expect(steps.products!.outcomes.created).toBeGreaterThan(0);
    const failedLines = readFileSync(steps.assets!.report!, 'utf8')
      .split('\n')
      .filter((l) => l.includes('dead-link.jpg') && l.includes(',failed,'));
    expect(failedLines).toHaveLength(1);
    expect(failedLines[0]).toContain('500');
    expect(failedLines[0]).toMatch(/could not be reached/);

    const again = await copy(['--since']);
    expect(again.code).toBe(1);
    const assets = again.result.steps.find((s) => s.step === 'assets')!;
    // Read again from the mark before the failed asset: it is tried, the rest found unchanged.
    expect(assets.outcomes.failed).toBe(1);
    expect(assets.outcomes.created ?? 0).toBe(0);
  }, 120_000);
});
