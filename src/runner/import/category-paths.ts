// Categories named by paths of titles (`categoryPath` columns): before a batch is written, each path's
// categories are found or created, root first, so the drafts' links to them resolve. A category is
// found by the reference derived from its path, else by its title under the parent found for the path
// before it; else it is created (one POST each, parents first). The ids go to the run's lookup under
// the derived reference, so links cost nothing more. A category found by title is remembered for the
// runs after (`CategoryMatches`): they look it up by its ref with the derived ones, and check its title
// and parent, rather than search by title again. docs/profiles.md "Categories from paths".

import { isApiError } from '../../api/errors.js';
import { takeOldest } from '../../bounded-map.js';
import { categoryRefOf, pathText } from '../../mappers/category-path.js';
import type { Draft } from '../../mappers/types.js';
import type { CategoryMatches } from '../../runs/category-matches.js';
import type { EntityModel } from '../../schema/model.js';
import { mapConcurrent } from './concurrent.js';
import type { RecordLookup } from './lookup.js';
import { type ExecutorContext, type FailurePlace, placeOf, UncertainWrite, UnmadeWrite } from './outcome.js';
import { plannedId } from './planned.js';
import { createOnce } from './write.js';

/** One category of a path: its titles from the root, its derived ref and its parent's. */
interface PathNode {
  titles: string[];
  ref: string;
  parentRef: string | undefined;
  /** The first draft that names it (a plan records the category as coming from its row). */
  by: Draft;
}

/** Paths whose categories this run created (or, in a plan, would create): counted, the first named. */
export interface CreatedCategories {
  count: number;
  /** The first paths, as people write them (`Clothing > Hoodies`). */
  paths: string[];
}

/**
 * Why a draft cannot be written: a category of its path could not be created, or (`uncertain`) its
 * creation's answer was lost and the look-up that would tell failed: the draft is not finished.
 */
export interface PathFailure {
  message: string;
  problem: FailurePlace;
  uncertain?: true;
}

const PATHS_KEPT = 50;
/** Paths that failed this run, by derived ref: their rows fail at once after (bounded). */
const FAILED_KEPT = 10_000;

export class CategoryPaths {
  readonly created: CreatedCategories = { count: 0, paths: [] };
  private readonly failed = new Map<string, string>();
  /**
   * Categories of this batch whose POST may have been made, unchecked (why, as the report says it):
   * their rows are not finished. Looked up again by the next batch that names them.
   */
  private readonly uncertain = new Map<string, string>();

  constructor(
    private readonly ctx: ExecutorContext,
    private readonly lookup: RecordLookup,
    private readonly entity: EntityModel,
    /** Categories earlier runs found by title (not in a plan). */
    private readonly matches?: CategoryMatches,
  ) {}

  /**
   * Finds or creates the categories of the drafts' paths. Returns the drafts that cannot be written,
   * with why (a category of their path could not be created).
   */
  async ensure(drafts: readonly Draft[]): Promise<Map<Draft, PathFailure>> {
    const failures = new Map<Draft, PathFailure>();
    const withPaths = drafts.filter((d) => d.links.categoryPaths && d.links.categoryPaths.length > 0);
    if (withPaths.length === 0) return failures;
    // A creation left uncertain by a batch before is looked up again: the look-up may tell now.
    this.uncertain.clear();
    const { entity } = this;
    // Category rows of this batch are written by the batch itself (parents first): not created here.
    const ownRefs = new Set(drafts.filter((d) => d.entity === entity.name).map((d) => d.ref));
    const nodes = new Map<string, PathNode>();
    for (const draft of withPaths) {
      for (const path of draft.links.categoryPaths!) {
        for (let depth = 1; depth <= path.length; depth++) {
          const titles = path.slice(0, depth);
          const ref = categoryRefOf(titles);
          if (nodes.has(ref)) continue;
          nodes.set(ref, {
            titles,
            ref,
            parentRef: depth > 1 ? categoryRefOf(titles.slice(0, -1)) : undefined,
            by: draft,
          });
        }
      }
    }
    // A category this run could not create is not looked for again: its rows fail at once.
    const unknown = () =>
      [...nodes.values()].filter((n) => this.idOf(n.ref) === undefined && !this.failed.has(n.ref));
    // 1. By the derived reference, and by the ref an earlier run found by title, 100 per request.
    const existingRefs = await this.lookUpRefs(unknown());
    // 2. By title path: categories with these titles, each placed under the parent found before it.
    const byTitle = unknown();
    if (byTitle.length > 0)
      for (const [ref, own] of await this.matchTitles(byTitle)) existingRefs.set(ref, own);
    if (existingRefs.size > 0) {
      // A category row whose path names a category that exists under another ref updates that one.
      for (const draft of drafts) {
        const existing = draft.entity === entity.name ? existingRefs.get(draft.ref) : undefined;
        if (existing === undefined) continue;
        draft.ref = existing;
        draft.fields[entity.refField] = existing;
      }
    }
    // 3. Created, parents first; a category row of the batch is left to the batch.
    const missing = unknown()
      .filter((n) => !ownRefs.has(n.ref))
      .sort((a, b) => a.titles.length - b.titles.length);
    for (let depth = 1; missing.some((n) => n.titles.length >= depth); depth++) {
      const level = missing.filter(
        (n) => n.titles.length === depth && !this.failed.has(n.ref) && !this.uncertain.has(n.ref),
      );
      await mapConcurrent(level, this.ctx.settings.concurrency, (n) => this.create(n));
    }

    for (const draft of withPaths) {
      for (const path of draft.links.categoryPaths!) {
        const why = this.whyMissing(path);
        if (!why) continue;
        // The column that gave the path: a product's category link, a category's own path or its parent's.
        const key = ['link:categoryRefs', entity.refField, 'link:parentRef'].find(
          (k) => draft.source.columns[k] !== undefined,
        );
        failures.set(draft, {
          message: why.message,
          problem: placeOf(draft, key ?? 'link:categoryRefs', pathText(path), why.brief, why.field),
          ...(why.uncertain && { uncertain: true as const }),
        });
        break;
      }
    }
    return failures;
  }

  private idOf(ref: string): number | string | undefined {
    return this.lookup.knownId(this.entity.name, ref);
  }

  /**
   * Looks the nodes up by their derived refs and, in the same request, by the refs earlier runs matched
   * them to by title; a match holds while the category has the node's title under the node's parent.
   * Returns derived ref -> the matched category's own ref, for the matches that held.
   */
  private async lookUpRefs(nodes: PathNode[]): Promise<Map<string, string>> {
    const { entity, lookup, matches } = this;
    const held = new Map<string, string>();
    const titleField = titleFieldOf(entity);
    const parentField = parentFieldOf(entity);
    const earlier = new Map<string, PathNode>();
    if (matches && titleField && parentField)
      for (const node of nodes) {
        const own = matches.get(node.ref);
        if (own !== undefined && own !== node.ref && this.idOf(own) === undefined) earlier.set(own, node);
      }
    const found = new Map<string, Record<string, unknown>>();
    await lookup.lookupIds(
      entity,
      [...nodes.map((n) => n.ref), ...earlier.keys()],
      earlier.size === 0
        ? undefined
        : {
            fields: [titleField!, parentField!],
            seen: (record) => {
              const ref = String(record[entity.refField]);
              if (earlier.has(ref)) found.set(ref, record);
            },
          },
    );
    // Root first: a node's parent is placed before the node is checked against it.
    const sorted = [...earlier].sort((a, b) => a[1].titles.length - b[1].titles.length);
    for (const [own, node] of sorted) {
      const record = found.get(own);
      const parentId = node.parentRef === undefined ? null : this.idOf(node.parentRef);
      const holds =
        record !== undefined &&
        this.idOf(node.ref) === undefined &&
        String(record[titleField!] ?? '') === node.titles.at(-1) &&
        parentId !== undefined &&
        String(record[parentField!] ?? '') === String(parentId ?? '');
      if (!holds) {
        matches!.forget(node.ref);
        continue;
      }
      lookup.rememberId(entity.name, node.ref, record[entity.idField] as number | string);
      held.set(node.ref, own);
    }
    return held;
  }

  /**
   * The first category of the path that could not be created, or whose creation is uncertain
   * (`uncertain`); undefined when all exist.
   */
  private whyMissing(
    path: string[],
  ): { message: string; brief: string; field: string; uncertain?: true } | undefined {
    for (let depth = 1; depth <= path.length; depth++) {
      const ref = categoryRefOf(path.slice(0, depth));
      const uncertain = this.uncertain.get(ref);
      if (uncertain !== undefined) {
        return {
          message: `not finished: category '${pathText(path.slice(0, depth))}' may have been created: ${uncertain}`,
          brief: 'category may have been created, unchecked',
          field: this.entity.refField,
          uncertain: true,
        };
      }
      const failed = this.failed.get(ref);
      if (failed !== undefined) {
        return {
          message: `category '${pathText(path.slice(0, depth))}' could not be created: ${failed}`,
          brief: `category could not be created: ${failed}`,
          field: this.entity.refField,
        };
      }
    }
    return undefined;
  }

  /**
   * Existing categories with the nodes' titles (base language), matched root first under their
   * parent. Returns derived ref -> the matched category's own ref.
   */
  private async matchTitles(nodes: PathNode[]): Promise<Map<string, string>> {
    const { entity, lookup, ctx } = this;
    const matched = new Map<string, string>();
    const titleField = titleFieldOf(entity);
    const parentField = parentFieldOf(entity);
    if (!titleField || !parentField) return matched;
    const titles = new Set(nodes.map((n) => n.titles.at(-1)!));
    /** `parent id or root` + `\0` + title -> the first such category. */
    const found = new Map<string, { id: number | string; ref: string }>();
    for await (const record of ctx.catalog.listIn<Record<string, unknown>>(entity.path, titleField, titles, {
      query: { $select: `${entity.idField},${entity.refField},${titleField},${parentField}` },
      culture: ctx.model.baseLanguage,
    })) {
      const key = `${String(record[parentField] ?? '')}\u0000${String(record[titleField] ?? '')}`;
      if (!found.has(key))
        found.set(key, {
          id: record[entity.idField] as number | string,
          ref: String(record[entity.refField]),
        });
    }
    const sorted = [...nodes].sort((a, b) => a.titles.length - b.titles.length);
    for (const node of sorted) {
      const parentId = node.parentRef === undefined ? '' : this.idOf(node.parentRef);
      if (parentId === undefined) continue;
      const hit = found.get(`${String(parentId)}\u0000${node.titles.at(-1)!}`);
      if (hit === undefined) continue;
      lookup.rememberId(entity.name, node.ref, hit.id);
      matched.set(node.ref, hit.ref);
      this.matches?.set(node.ref, hit.ref);
    }
    return matched;
  }

  /** One POST (in a plan: none); an outcome left unknown is looked up by ref before sending again. */
  private async create(node: PathNode): Promise<void> {
    const { entity, lookup, ctx } = this;
    const parentId = node.parentRef === undefined ? null : this.idOf(node.parentRef);
    if (parentId === undefined) {
      // Its parent may have been created, unchecked: the rows are not finished, whyMissing says why.
      const unsure = this.uncertain.get(node.parentRef!);
      if (unsure !== undefined) {
        this.uncertain.set(node.ref, unsure);
        return;
      }
      const why = this.failed.get(node.parentRef!) ?? 'its parent could not be created';
      this.fail(node.ref, why);
      return;
    }
    const titleField = titleFieldOf(entity);
    const parentField = parentFieldOf(entity) ?? 'cat_parent_id';
    const fields = {
      [entity.refField]: node.ref,
      ...(titleField && { [titleField]: node.titles.at(-1)! }),
    };
    const parent = parentId === null ? {} : { [parentField]: parentId };
    if (ctx.settings.plan) {
      this.note(node);
      lookup.rememberId(entity.name, node.ref, plannedId(node.ref));
      // The sheets after this one (a workbook) find it as the import's would.
      ctx.planned?.created(
        {
          entity: entity.name,
          ref: node.ref,
          command: 'NEW',
          fields,
          cultures: {},
          assets: [],
          links: {},
          source: node.by.source,
        },
        parent,
      );
      return;
    }
    const body: Record<string, unknown> = { ...fields, ...parent };
    try {
      const id = await createOnce(ctx, entity, body, async () => {
        await lookup.lookupIds(entity, [node.ref]);
        return this.idOf(node.ref);
      });
      lookup.rememberId(entity.name, node.ref, id);
      this.note(node);
    } catch (err) {
      // Its POST's answer was lost and the look-up that would tell failed: it may have been created.
      // Not failed: the rows that need it are not finished (--resume, or the next run, looks it up).
      if (err instanceof UncertainWrite) {
        this.uncertain.set(node.ref, err.why);
        return;
      }
      // No try made it: it could not be created.
      if (err instanceof UnmadeWrite) {
        this.fail(node.ref, err.message);
        return;
      }
      if (!isApiError(err)) throw err;
      const details = err.failures.map((f) => f.message).join('; ');
      this.fail(
        node.ref,
        `${err.service} refused the POST (${err.status ?? err.code}): ${details || err.message}`,
      );
    }
  }

  private note(node: PathNode): void {
    this.created.count += 1;
    if (this.created.paths.length < PATHS_KEPT) this.created.paths.push(pathText(node.titles));
  }

  private fail(ref: string, why: string): void {
    this.failed.set(ref, why);
    if (this.failed.size > FAILED_KEPT) takeOldest(this.failed);
  }
}

/** The category's parent link (`cat_parent_id`). */
function parentFieldOf(entity: EntityModel): string | undefined {
  return entity.fields.find((f) => f.references === 'Categories' && !f.multiple)?.name;
}

/** The category's title field (`cat_title`). */
function titleFieldOf(entity: EntityModel): string | undefined {
  return entity.field(`${entity.refField.replace(/_ref$/, '')}_title`)?.name;
}
