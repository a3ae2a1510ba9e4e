// A named point where a run can be made to stop and wait, so crash tests can SIGKILL it at a known
// step: CATALOG_IO_TEST_PAUSE_AT=batch:3 (before batch 3's writes), write:3 (with batch 3's first
// writes sent), dam (during the first DAM registration), done:3 (after batch 3), start (before any
// write), state (the new import state written out, not yet renamed over the last one). The process says `paused at <point>` on stderr and waits for its signal.

const target = process.env.CATALOG_IO_TEST_PAUSE_AT;
let paused = false;

export function pauseAt(point: string): Promise<void> | undefined {
  if (!target || paused || point !== target) return undefined;
  paused = true;
  process.stderr.write(`paused at ${point}\n`);
  return new Promise(() => {
    // Never resolves: the test kills the process here.
    setInterval(() => {}, 1 << 30);
  });
}
