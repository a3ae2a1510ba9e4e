// The run registry: old finished runs are pruned (unfinished ones stay until resumed), and a run whose
// process is gone shows as crashed.
import { appendFileSync, mkdtempSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseRun } from '../../src/runner/import/resume.js';
import { HEARTBEAT_MS, JournalWriter } from '../../src/runs/journal.js';
import { RunRegistry, SILENT_RUN_MS } from '../../src/runs/registry.js';

const meta = (startedAt: string) => ({
  command: 'import' as const,
  source: 'feed.csv',
  identity: { key: '/feeds/feed.csv', size: 10, hash: 'x' },
  profileHash: 'p',
  entity: 'products',
  tenant: 't',
  startedAt,
});

/** The run `--resume` (with or without an id) would continue, if any. */
async function resumed(registry: RunRegistry, id?: string): Promise<string | undefined> {
  const choice = await chooseRun({
    registry,
    resume: id ?? true,
    identity: meta('').identity,
    profileHash: 'p',
    tenant: 't',
    source: '/feeds/feed.csv',
  });
  return choice.kind === 'resume' ? choice.meta.runId : undefined;
}

describe('run registry', () => {
  it('keeps the last N finished runs and every unfinished one', async () => {
    const registry = new RunRegistry(mkdtempSync(join(tmpdir(), 'registry-')));
    const ids: string[] = [];
    for (let day = 1; day <= 5; day++) {
      const run = await registry.create(meta(`2026-01-0${day}T02:30:00.000Z`));
      await registry.save({ ...run, state: day === 2 ? 'interrupted' : 'finished' });
      // A run that ended says so last in its journal.
      appendFileSync(registry.journalFile(run.runId), '{"t":"end","rows":0}\n');
      ids.push(run.runId);
    }
    await registry.prune(2);
    const left = (await registry.list()).map((r) => r.runId);
    expect(left.sort()).toEqual([ids[1], ids[3], ids[4]].sort());
    // The interrupted one is what --resume finds.
    expect(await resumed(registry)).toBe(ids[1]);
  });

  it('lists runs started within one second newest first (ids sort in start order)', async () => {
    const registry = new RunRegistry(mkdtempSync(join(tmpdir(), 'registry-')));
    const started: string[] = [];
    for (const ms of ['004', '120', '121', '950']) {
      const run = await registry.create(meta(`2026-01-01T02:30:00.${ms}Z`));
      await registry.save({ ...run, state: 'finished' });
      started.push(run.runId);
    }
    expect((await registry.list()).map((r) => r.runId)).toEqual(started.reverse());
  });

  it('a running run whose process is gone is crashed', async () => {
    const registry = new RunRegistry(mkdtempSync(join(tmpdir(), 'registry-')));
    const run = await registry.create(meta('2026-01-01T02:30:00.000Z'));
    // A pid that cannot be alive.
    await registry.save({ ...run, pid: 2 ** 22 + 1 });
    expect((await registry.list())[0]!.state).toBe('crashed');
    expect(await resumed(registry)).toBe(run.runId);
  });

  it('a run on another host is running while its journal is touched, crashed once it falls silent', async () => {
    const registry = new RunRegistry(mkdtempSync(join(tmpdir(), 'registry-')));
    const run = await registry.create(meta('2026-01-01T02:30:00.000Z'));
    await registry.save({ ...run, host: 'another-worker' });
    writeFileSync(registry.journalFile(run.runId), `${JSON.stringify({ t: 'start', run: run.runId })}\n`);
    expect((await registry.list())[0]!.state).toBe('running');
    await expect(resumed(registry, run.runId)).rejects.toThrow(/still running/);
    const silentSince = (Date.now() - SILENT_RUN_MS - 1_000) / 1000;
    utimesSync(registry.journalFile(run.runId), silentSince, silentSince);
    expect((await registry.list())[0]!.state).toBe('crashed');
    expect(await resumed(registry)).toBe(run.runId);
  });

  it('a live journal is touched every few seconds even when no row finishes', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'journal-')), 'rows.jsonl');
    const journal = new JournalWriter(file);
    try {
      const long = (Date.now() - 3_600_000) / 1000;
      utimesSync(file, long, long);
      await new Promise((resolve) => setTimeout(resolve, HEARTBEAT_MS + 1_500));
      expect(Date.now() - statSync(file).mtimeMs).toBeLessThan(HEARTBEAT_MS + 1_000);
    } finally {
      journal.close();
    }
  });
});
