/** A process's own peak resident memory, in KB (see own-peak-rss.mjs). */
export function ownPeakRssKb(): number;
