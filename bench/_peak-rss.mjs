// Loaded with `node --import` into the processes the validation and import-rates benchmarks measure: on exit, writes the process's
// own peak RSS and CPU time to the file named by CATALOG_IO_BENCH_USAGE (the parent cannot read them after). The peak is the
// process's own high-water mark, not `resourceUsage().maxRSS`, which counts the benchmark's memory at the fork (own-peak-rss.mjs).
import { writeFileSync } from 'node:fs';
import { ownPeakRssKb } from '../test/helpers/own-peak-rss.mjs';

const file = process.env.CATALOG_IO_BENCH_USAGE;
if (file) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    const cpuSeconds = (usage.userCPUTime + usage.systemCPUTime) / 1e6;
    writeFileSync(file, JSON.stringify({ peakRssMb: Math.round(ownPeakRssKb() / 1024), cpuSeconds }));
  });
}
