// Loaded into a CLI child with `--import`: at exit, writes the process's peak resident memory (KB,
// the kernel's high-water mark) to the file named by CATALOG_IO_PEAK_MEMORY_FILE.
import { writeFileSync } from 'node:fs';

const file = process.env.CATALOG_IO_PEAK_MEMORY_FILE;
if (file) process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS)));
