// The catalog's changes for the sandbox's write log: records put or deleted per table, changelog
// entries added, and the layouts when one was replaced. Each operation names its table's next id, so
// an id is never handed out twice even when its record was created and deleted between two drains.
import type { ChangeJournal } from '../http.js';
import type { ChangelogEntry } from './changelog.js';
import type { Layout, StoredRecord } from './model.js';
import type { CatalogStore } from './store.js';
import type { Table } from './table.js';

export type CatalogOp =
  | { op: 'put'; table: string; next: number; record: StoredRecord }
  | { op: 'del'; table: string; next: number; id: number }
  | { op: 'changelog'; log: string; entry: ChangelogEntry }
  | { op: 'layouts'; category: Layout | null; custom: Record<string, Layout> };

export class CatalogJournal implements ChangeJournal {
  /** The layouts as last logged (compared by identity: a layout is replaced, never edited in place). */
  private loggedCategory: Layout | null = null;
  private loggedCustom = new Map<string, Layout>();

  constructor(private readonly store: CatalogStore) {}

  track(): void {
    for (const [, table] of this.store.allTables()) table.trackChanges();
    this.store.changelog.trackChanges();
    this.loggedCategory = this.store.categoryLayout;
    this.loggedCustom = new Map(this.store.customLayouts);
  }

  drain(): CatalogOp[] {
    const ops: CatalogOp[] = [];
    for (const [name, table] of this.store.allTables()) {
      for (const id of table.takeChanged()) {
        const record = table.get(id);
        ops.push(
          record
            ? { op: 'put', table: name, next: table.nextId, record }
            : { op: 'del', table: name, next: table.nextId, id },
        );
      }
    }
    for (const { log, entry } of this.store.changelog.takeAdded()) ops.push({ op: 'changelog', log, entry });
    if (this.layoutsChanged()) {
      this.loggedCategory = this.store.categoryLayout;
      this.loggedCustom = new Map(this.store.customLayouts);
      ops.push({
        op: 'layouts',
        category: this.store.categoryLayout,
        custom: Object.fromEntries(this.store.customLayouts),
      });
    }
    return ops;
  }

  apply(raw: unknown): void {
    const op = raw as CatalogOp;
    switch (op?.op) {
      case 'put': {
        const table = this.table(op.table);
        const id = op.record[table.key] as number;
        if (table.get(id)) table.replace(op.record);
        else table.insert(op.record);
        table.nextId = Math.max(table.nextId, op.next);
        return;
      }
      case 'del': {
        const table = this.table(op.table);
        table.delete(op.id);
        table.nextId = Math.max(table.nextId, op.next);
        return;
      }
      case 'changelog':
        this.store.changelog.replay(op.log, op.entry);
        return;
      case 'layouts':
        this.store.categoryLayout = op.category;
        this.store.customLayouts.clear();
        for (const [d, layout] of Object.entries(op.custom)) this.store.customLayouts.set(d, layout);
        return;
      default:
        throw new Error(`unknown catalog operation ${JSON.stringify(raw)?.slice(0, 80)}`);
    }
  }

  private table(name: string): Table {
    const found = this.store.allTables().find(([n]) => n === name);
    if (!found) throw new Error(`the write log names a table this tenant does not have: ${name}`);
    return found[1];
  }

  private layoutsChanged(): boolean {
    const custom = this.store.customLayouts;
    if (this.store.categoryLayout !== this.loggedCategory || custom.size !== this.loggedCustom.size)
      return true;
    for (const [d, layout] of custom) if (this.loggedCustom.get(d) !== layout) return true;
    return false;
  }
}
