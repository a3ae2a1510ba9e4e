// The refs the duplicate check added lately (ref-tracker.ts), in a table small enough to stay in the
// processor's cache: a file whose refs come in no order would otherwise read and write one place of the
// large table per row, each a trip to memory. A ref is placed here by the top bits of its hash A, as the
// large table places it by the same bits, so reading these slots in order gives the refs nearly in the
// large table's order: moving them in walks up the large table instead of jumping around in it.
import { TEMPLATE_MASK, WIDTH } from './ref-runs.js';

/** Slots of the table: 8,192 (96 KB). */
const SLOTS_LOG2 = 13;
export const RECENT_SLOTS = 1 << SLOTS_LOG2;
/** Refs held before they move into the large table: half the slots, so that probes stay short. */
export const RECENT_HOLD = RECENT_SLOTS / 2;

export class RecentRefs {
  /** Hash A, hash B (0: an empty slot) and line, side by side, as in the large table. */
  readonly table = new Int32Array(RECENT_SLOTS * WIDTH);
  count = 0;

  /**
   * The slot holding these hashes (the template byte aside), or `~slot` of the empty slot where they
   * would go.
   */
  probe(a: number, b: number): number {
    const table = this.table;
    let i = a >>> (32 - SLOTS_LOG2);
    for (; table[i * WIDTH + 1] !== 0; i = (i + 1) & (RECENT_SLOTS - 1)) {
      const at = i * WIDTH;
      if (table[at] === a && (table[at + 1]! & ~TEMPLATE_MASK) === (b & ~TEMPLATE_MASK)) return i;
    }
    return ~i;
  }

  /** Puts a ref in the empty slot `probe` gave. */
  add(slot: number, a: number, b: number, line: number): void {
    const at = slot * WIDTH;
    this.table[at] = a;
    this.table[at + 1] = b;
    this.table[at + 2] = line;
    this.count += 1;
  }

  clear(): void {
    this.table.fill(0);
    this.count = 0;
  }
}
