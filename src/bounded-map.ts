// Maps and sets used as bounded caches: the insertion order is the age (an entry set again moves to the
// end), and past a limit the oldest entry goes. The oldest is found with a cursor kept per collection:
// V8 leaves a deleted entry as a hole until its table is rebuilt, so a new iterator at every eviction
// steps over every hole the evictions before it left, which is quadratic in the cache's size (a
// 300,000-row `import --plan` spent 15 of its 22 s there). The cursor walks the order once.

interface Ordered<K, V> {
  entries(): IterableIterator<[K, V]>;
  delete(key: K): boolean;
}

const cursors = new WeakMap<object, Iterator<[unknown, unknown]>>();

/** The oldest entry, taken out of the map (or set: `[value, value]`); undefined when it is empty. */
export function takeOldest<K, V>(collection: Ordered<K, V>): [K, V] | undefined {
  let cursor = cursors.get(collection) as Iterator<[K, V]> | undefined;
  let next = cursor?.next();
  // A cursor that reached the end stays there (a finished iterator never resumes): start another.
  if (!cursor || !next || next.done) {
    cursor = collection.entries();
    cursors.set(collection, cursor);
    next = cursor.next();
    if (next.done) return undefined;
  }
  collection.delete(next.value[0]);
  return next.value;
}

/** Sets `key` as the newest entry; drops the oldest when the map holds more than `limit`. */
export function setBounded<V>(map: Map<string, V>, key: string, value: V, limit: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > limit) takeOldest(map);
}
