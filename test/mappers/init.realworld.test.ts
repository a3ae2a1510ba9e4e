// `profile init` measured on the real feeds of ../shared/data/realworld: each file has a fixture
// (`fixtures/realworld/<file>.expected.json`) listing the headers a careful person maps and where (field,
// language, list separator, unit, category paths, the parent column), written by reading the file. The
// draft must place at least 90% of them right over all files, and place no header on a wrong field.
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryOutput } from '../../src/cli/output.js';
import type { ColumnRule, Profile } from '../../src/mappers/profile-types.js';
import { sandboxFlags, useSandbox } from '../helpers/sandbox.js';
import { REALWORLD } from '../helpers/shared.js';

const DATA = REALWORLD;
const FIXTURES = join(import.meta.dirname, 'fixtures', 'realworld');

interface Expected {
  /** One field, or the fields a careful person could choose between. */
  field?: string | string[];
  culture?: string;
  split?: string | string[];
  unit?: string;
  /** `true`: a category path rule of any separator; a string or list: its separator. */
  categoryPath?: true | string | string[];
  /** The header is the profile's `parentColumn`. */
  parentColumn?: true;
}

interface Fixture {
  entity: string;
  columns: Record<string, Expected>;
  /** Headers that may stay unplaced or go to one of these fields (`parentColumn` included). */
  optional: Record<string, string[]>;
}

type Rule = ColumnRule & { categoryPath?: true | { separator: string } };

const fixture = useSandbox({ seed: 'empty' });
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'profile-init-realworld-'));
});

const list = <T>(v: T | T[]) => (Array.isArray(v) ? v : [v]);

/** Why the header's placement differs from the fixture's, or undefined when it is right. */
function judge(header: string, want: Expected, profile: Profile): string | undefined {
  if (want.parentColumn) return profile.parentColumn === header ? undefined : 'not the parentColumn';
  const placed = profile.columns?.[header];
  if (placed === null || placed === undefined) return 'not placed';
  const rule: Rule = typeof placed === 'string' ? { field: placed } : (placed as Rule);
  if (!list(want.field!).includes(rule.field)) return `placed on ${rule.field}`;
  if (want.culture && (rule.culture ?? 'en') !== want.culture) return `culture ${rule.culture}`;
  if (want.split && !list(want.split).includes(String(rule.split ?? '|'))) return `split ${rule.split}`;
  if (want.unit && rule.unit !== want.unit) return `unit ${rule.unit}`;
  if (want.categoryPath) {
    if (!rule.categoryPath) return 'no categoryPath';
    if (want.categoryPath !== true) {
      const separator = rule.categoryPath === true ? undefined : rule.categoryPath.separator;
      if (!list(want.categoryPath).includes(String(separator))) return `categoryPath separator ${separator}`;
    }
  }
  return undefined;
}

/** A header placed where the fixture does not allow: on a wrong field, or placed at all. */
function wrongPlacements(fixture: Fixture, profile: Profile): string[] {
  const wrong: string[] = [];
  for (const [header, placed] of Object.entries(profile.columns ?? {})) {
    if (placed === null) continue;
    const field = typeof placed === 'string' ? placed : placed.field;
    const want = fixture.columns[header];
    if (want) {
      if (!want.parentColumn && !list(want.field!).includes(field)) wrong.push(`${header} -> ${field}`);
      else if (want.parentColumn) wrong.push(`${header} -> ${field} (the parent column)`);
    } else if (!(fixture.optional[header] ?? []).includes(field)) wrong.push(`${header} -> ${field}`);
  }
  const parent = profile.parentColumn;
  if (
    parent &&
    !fixture.columns[parent]?.parentColumn &&
    !(fixture.optional[parent] ?? []).includes('parentColumn')
  )
    wrong.push(`parentColumn ${parent}`);
  return wrong;
}

async function draft(file: string, entity: string): Promise<Profile> {
  const out = memoryOutput();
  const target = join(dir, `${file}.json`);
  const code = await main(
    ['profile', 'init', join(DATA, file), '--entity', entity, '--out', target, ...sandboxFlags(fixture.sb)],
    out,
  );
  expect(code, out.stderr.join('\n')).toBe(0);
  return JSON.parse(await readFile(target, 'utf8')) as Profile;
}

describe('profile init on real-world feeds', () => {
  it('places at least 90% of the headers a careful person maps, and none on a wrong field', async () => {
    const files = (await readdir(FIXTURES)).filter((f) => f.endsWith('.expected.json')).sort();
    const data = (await readdir(DATA)).filter((f) => f !== 'README.md');
    // Every data file has a fixture.
    expect(files.map((f) => f.replace(/\.expected\.json$/, '')).sort()).toEqual(data.sort());
    let right = 0;
    let total = 0;
    const lines: string[] = [];
    const wrong: string[] = [];
    for (const name of files) {
      const file = name.replace(/\.expected\.json$/, '');
      const want = JSON.parse(await readFile(join(FIXTURES, name), 'utf8')) as Fixture;
      const profile = await draft(file, want.entity);
      const misses: string[] = [];
      let ok = 0;
      for (const [header, expected] of Object.entries(want.columns)) {
        const why = judge(header, expected, profile);
        if (why) misses.push(`${header}: ${why}`);
        else ok++;
      }
      const count = Object.keys(want.columns).length;
      right += ok;
      total += count;
      const bad = wrongPlacements(want, profile);
      wrong.push(...bad.map((b) => `${file}: ${b}`));
      lines.push(
        `${`${ok}/${count}`.padStart(6)}  ${file}${misses.length ? `  (missed: ${misses.join('; ')})` : ''}${bad.length ? `  WRONG: ${bad.join('; ')}` : ''}`,
      );
    }
    lines.push(`${`${right}/${total}`.padStart(6)}  overall (${((100 * right) / total).toFixed(1)}%)`);
    console.log(`profile init on real-world feeds:\n${lines.join('\n')}`);
    expect(wrong).toEqual([]);
    expect(right / total).toBeGreaterThanOrEqual(0.9);
  }, 120_000);
});
