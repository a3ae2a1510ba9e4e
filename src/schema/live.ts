// The `$metadata` documents a live command reads: only those its model needs, each at most once per
// connection. Requests are the scarce resource (50 / 10 s), and every command builds a model:
// - `/$metadata` always: it holds every standard resource under `$defs` (spec, "Metadata");
// - a standard resource's own document only when `$defs` lacks it;
// - the custom-entity list and a custom entity's own document only when the command touches custom
//   entities (the spec gives a custom entity's properties in its own document only);
// - never `/AttributeSets/$metadata`: the model does not use it (`schema pull` still writes it).
import type { CatalogClient, MetadataDocument } from '../api/catalog.js';
import { customEntityPath } from '../api/url.js';
import { catalogDefines, STANDARD_ENTITIES } from './build.js';
import { denominatorsOf, optional, type RawSchemas, type StandardCollection } from './raw.js';

/**
 * The entities a command touches: `all`, or their names as a profile or the command line gives them
 * (`products`, `Variants`, `custom:Store Locations`, a denominator). A name that is not a standard
 * entity nor a listed custom entity reads every custom entity, so an error can name them all.
 */
export type ModelScope = 'all' | readonly string[];

const MODEL_COLLECTIONS: StandardCollection[] = ['Products', 'Variants', 'Categories'];

export class LiveSchemas {
  private fetchedAt: string | undefined;
  private catalog: Promise<MetadataDocument> | undefined;
  private readonly resources = new Map<StandardCollection, Promise<MetadataDocument | undefined>>();
  private list: Promise<MetadataDocument | undefined> | undefined;
  private readonly custom = new Map<string, Promise<MetadataDocument | undefined>>();

  constructor(
    private readonly client: CatalogClient,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The documents the scope's model is built from, fetching those not read yet. */
  async raw(scope: ModelScope): Promise<RawSchemas> {
    this.fetchedAt ??= this.now().toISOString();
    this.catalog ??= this.client.metadata('catalog');
    const catalog = await this.catalog;
    const resources: RawSchemas['resources'] = {};
    const missing = MODEL_COLLECTIONS.filter((c) => !catalogDefines(catalog, c));
    const docs = await Promise.all(missing.map((c) => this.once(this.resources, c, c)));
    for (const [i, name] of missing.entries()) {
      const doc = docs[i];
      if (doc) resources[name] = doc;
    }
    const raw: RawSchemas = {
      fetchedAt: this.fetchedAt,
      source: this.client.baseUrl,
      catalog,
      resources,
      customEntities: undefined,
      custom: {},
    };
    const wanted = scope === 'all' ? 'all' : scope.filter((name) => !isStandard(name));
    if (wanted !== 'all' && wanted.length === 0) return raw;

    this.list ??= optional(() => this.client.metadata('CustomEntities'));
    raw.customEntities = await this.list;
    const denominators = denominatorsOf(raw.customEntities);
    const named = wanted === 'all' ? [] : wanted.map((name) => denominators.find((d) => names(name, d)));
    const reading = wanted === 'all' || named.includes(undefined) ? denominators : (named as string[]);
    const read = await Promise.all(reading.map((d) => this.once(this.custom, d, { custom: d })));
    for (const [i, denominator] of reading.entries()) {
      const doc = read[i];
      if (doc) raw.custom[denominator] = doc;
    }
    return raw;
  }

  private once<K>(
    cache: Map<K, Promise<MetadataDocument | undefined>>,
    key: K,
    target: Parameters<CatalogClient['metadata']>[0],
  ): Promise<MetadataDocument | undefined> {
    let doc = cache.get(key);
    if (!doc) {
      doc = optional(() => this.client.metadata(target));
      cache.set(key, doc);
    }
    return doc;
  }
}

/** A standard entity by model or collection name, any case (as the model's `entity()` finds it). */
function isStandard(name: string): boolean {
  return STANDARD_ENTITIES.includes(name.toLowerCase());
}

/** Whether `name` names the custom entity `denominator` (as the model's `entity()` finds it). */
function names(name: string, denominator: string): boolean {
  const lower = name.toLowerCase();
  return (
    lower === denominator.toLowerCase() ||
    lower === `custom:${denominator}`.toLowerCase() ||
    `/${lower}` === customEntityPath(denominator).toLowerCase()
  );
}
