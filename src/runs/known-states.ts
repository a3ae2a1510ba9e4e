// The import states of one run: the state of the run's entity, and those of the other entities its rows
// draft (a products run's variants), each checked against its own changelog and count and kept in its
// own file (known-state.ts). A draft is judged and recorded by its entity's state; a draft of an entity
// without one is looked up. With them, the categories earlier runs found by title for the paths of
// `categoryPath` columns (category-matches.ts).
import { faultProblem, isFileFault } from '../files.js';
import type { Draft } from '../mappers/types.js';
import type { EntityModel } from '../schema/model.js';
import { CategoryMatches } from './category-matches.js';
import { type AssetVouch, KnownState, type KnownStateOptions, type Unchanged } from './known-state.js';

export class KnownStates {
  private constructor(
    private readonly states: Map<string, KnownState>,
    readonly categoryMatches: CategoryMatches,
  ) {}

  /**
   * Opens the state of `options.entity`, then those of `others` (each only when it costs less than
   * looking its records up). Undefined when the run's own state could not be read (the service did not
   * answer): every row is then looked up. Another entity's state that could not be read is left out.
   */
  static async open(
    options: KnownStateOptions,
    others: readonly EntityModel[] = [],
    onProblem?: (warning: string) => void,
  ): Promise<KnownStates | undefined> {
    let own: KnownState;
    try {
      own = await KnownState.open(options);
    } catch (err) {
      // The count or the changelog could not be read: every row is looked up, and the state on disk
      // stays as it is (its older changelog mark still covers every change since, this run's too).
      // Its folder could not be used (a file in its place, no permission, a full disk): said, since
      // every run would pay its lookups.
      if (isFileFault(err))
        onProblem?.(`the import state could not be used (${faultProblem(err)}): every row is looked up`);
      return undefined;
    }
    const states = new Map([[options.entity.name, own]]);
    for (const entity of others) {
      if (states.has(entity.name)) continue;
      try {
        states.set(entity.name, await KnownState.open({ ...options, entity, owner: options.entity.name }));
      } catch {
        // As above, for this entity's records alone.
      }
    }
    return new KnownStates(states, CategoryMatches.open(options.stateDir, options.tenant));
  }

  /**
   * Why a state was not used this run, for people: a tenant reset, records deleted on it, another
   * profile (KnownState.note, unless `untold`).
   */
  notes(): string[] {
    const said: string[] = [];
    for (const [entity, state] of this.states)
      if (!state.untold)
        said.push(
          `${entity}: the import state from the last run was not used (${state.note}): every row is looked up`,
        );
    return said;
  }

  /** The drafts that are as the last run left them (their id known), and the rest, to look up. */
  filterUnchanged(drafts: readonly Draft[]): { unchanged: Unchanged[]; rest: Draft[] } {
    const unchanged: Unchanged[] = [];
    const rest: Draft[] = [];
    for (const draft of drafts) {
      const id = this.states.get(draft.entity)?.unchangedId(draft);
      if (id !== undefined) unchanged.push({ draft, id });
      else rest.push(draft);
    }
    return { unchanged, rest };
  }

  /** How many of these drafts need a lookup. */
  toLookUp(drafts: readonly Draft[]): number {
    let n = 0;
    for (const draft of drafts) if (this.states.get(draft.entity)?.unchangedId(draft) === undefined) n += 1;
    return n;
  }

  /** The asset cache, checked against the DAM: rows naming image URLs may now be vouched for. */
  useAssets(assets: AssetVouch): void {
    for (const state of this.states.values()) state.useAssets(assets);
  }

  /** What a write left, in the state of the draft's entity. */
  record(draft: Draft, outcome: string, id: number | string | undefined): void {
    this.states.get(draft.entity)?.record(draft, outcome, id);
  }

  /** Something the states cannot follow happened (a full sync's deletions): the next run looks up. */
  distrust(): void {
    for (const state of this.states.values()) state.distrust();
  }

  /** Makes this run's states the ones the next run reads. */
  async save(): Promise<void> {
    for (const state of this.states.values()) await state.save();
    this.categoryMatches.save();
  }

  /** A run that failed outright: its unfinished states go, the last ones stay. */
  discard(): void {
    for (const state of this.states.values()) state.discard();
  }
}
