// Loaded into a CLI child with `--import`: at exit, writes the process's own peak resident memory (KB)
// to the file named by CATALOG_IO_PEAK_MEMORY_FILE (see own-peak-rss.mjs for why not maxRSS).
import { writeFileSync } from 'node:fs';
import { ownPeakRssKb } from '../helpers/own-peak-rss.mjs';

const file = process.env.CATALOG_IO_PEAK_MEMORY_FILE;
if (file) process.on('exit', () => writeFileSync(file, String(ownPeakRssKb())));
