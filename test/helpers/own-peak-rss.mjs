// A process's own peak resident memory, in KB: the kernel's high-water mark of its memory (VmHWM).
// Not `process.resourceUsage().maxRSS`: Linux keeps that across exec from the process that forked this
// one, so a child of a test worker or a benchmark that has grown to 360 MB reads 360 MB, whatever it
// used itself. Plain JavaScript: the `--import` preloads that measure children load it too.
import { readFileSync } from 'node:fs';

export function ownPeakRssKb() {
  try {
    const high = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (high) return Number(high[1]);
  } catch {
    // not Linux: the usage's figure
  }
  return process.resourceUsage().maxRSS;
}
