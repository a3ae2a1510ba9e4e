// Splits a catalog path such as `/CustomEntities('Store Locations')/item(5)` into segments with
// their keys. Quoted keys may contain `/` and doubled single quotes.

export type SegmentKey =
  | { kind: 'int'; value: number }
  | { kind: 'string'; value: string }
  | { kind: 'word'; value: string };

export interface Segment {
  name: string;
  key?: SegmentKey;
}

/** Undefined when the path is not made of `name` or `name(key)` segments. */
export function parsePath(path: string): Segment[] | undefined {
  const segments: Segment[] = [];
  let i = path.startsWith('/') ? 1 : 0;
  while (i < path.length) {
    let name = '';
    while (i < path.length && path[i] !== '/' && path[i] !== '(') name += path[i++];
    if (name === '') return undefined;
    const segment: Segment = { name };
    if (path[i] === '(') {
      i++;
      let raw = '';
      if (path[i] === "'") {
        i++;
        for (;;) {
          if (i >= path.length) return undefined;
          if (path[i] === "'") {
            if (path[i + 1] === "'") {
              raw += "'";
              i += 2;
              continue;
            }
            i++;
            break;
          }
          raw += path[i++];
        }
        if (path[i] !== ')') return undefined;
        segment.key = { kind: 'string', value: raw };
      } else {
        while (i < path.length && path[i] !== ')') raw += path[i++];
        if (path[i] !== ')') return undefined;
        segment.key =
          /^[0-9]+$/.test(raw) && raw.length < 16
            ? { kind: 'int', value: Number(raw) }
            : { kind: 'word', value: raw };
      }
      i++;
    }
    segments.push(segment);
    if (i < path.length) {
      if (path[i] !== '/') return undefined;
      i++;
      if (i === path.length) break; // a trailing slash is tolerated
    }
  }
  return segments;
}
