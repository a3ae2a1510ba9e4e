// A Map used as a bounded cache: the entry set last is the newest, and past `limit` the oldest goes.

/** Sets `key` as the newest entry; drops the oldest when the map holds more than `limit`. */
export function setBounded<V>(map: Map<string, V>, key: string, value: V, limit: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > limit) map.delete(map.keys().next().value as string);
}
