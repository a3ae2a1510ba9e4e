// Loaded with `node --import` into the processes the validation and import-rates benchmarks measure: on exit, writes the process's
// peak RSS and CPU time to the file named by CATALOG_IO_BENCH_USAGE (the parent cannot read them after).
import { writeFileSync } from 'node:fs';

const file = process.env.CATALOG_IO_BENCH_USAGE;
if (file) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    const cpuSeconds = (usage.userCPUTime + usage.systemCPUTime) / 1e6;
    writeFileSync(file, JSON.stringify({ peakRssMb: Math.round(usage.maxRSS / 1024), cpuSeconds }));
  });
}
