// Image and file names the catalog refuses in a record (the spec's "invalid characters in the name",
// spaces it trims, a comma in a field of one name): the DAM would register them from a URL all the same,
// then the record's write failed. `validate`, the plan and the import agree instead: the image is left
// out of the record with a warning (or, under `--on-asset-error fail`, the row fails), and the DAM is
// not asked at all.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disagreements, type TrialLine, tryFeed } from '../helpers/feed-trial.js';
import { useSandbox } from '../helpers/sandbox.js';
import { byRef, damImages, resetStats, stats } from './import.support.js';

const fixture = useSandbox({ processingMs: 5 });
const home = process.cwd();
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'import-asset-names-'));
  process.chdir(dir);
});
afterAll(() => process.chdir(home));

const url = (name: string) => `${fixture.sb.assetsUrl}/${name}`;
const byLineRef = (lines: TrialLine[]) => Object.fromEntries(lines.map((l) => [l.ref, l]));

async function feed(name: string, lines: string[]): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

/** The three steps' lines by ref: validate, plan, import. */
function steps(t: Awaited<ReturnType<typeof tryFeed>>) {
  return [byLineRef(t.validate.lines), byLineRef(t.plan.lines), byLineRef(t.imported.lines)] as const;
}

describe('a name the catalog refuses, from a URL', () => {
  it('a field of one image: left out with a warning in validate, plan and import; the DAM is not asked; the record is written', async () => {
    const { sb } = fixture;
    const names: Record<string, [string, string]> = {
      'AN-STAR': ['x*y.jpg', "'*' is one of the characters a name cannot hold"],
      'AN-BRACKET': ['br[1].jpg', "'[' is one of the characters"],
      'AN-COLON': ['x:y.jpg', "':' is one of the characters"],
      'AN-CTRL': ['n%0Al.jpg', 'a control character is one of the characters'],
      'AN-COMMA': ['a%2Cb.jpg', "the catalog refuses the name 'a,b.jpg' in a field of one name"],
      'AN-SPACE': ['%20sp.jpg', "it trims the spaces around a name and would look for 'sp.jpg'"],
    };
    const file = await feed('one-image.csv', [
      'frmt_ref,prod_ref,frmt_image',
      ...Object.entries(names).map(([ref, [name]]) => `${ref},COTTON-TEE,${url(name)}`),
    ]);
    const before = (await damImages(sb)).length;
    await resetStats(sb);
    const t = await tryFeed(sb, file, { dir, profile: false, feed: ['--entity', 'variants'] });
    expect(disagreements(t)).toEqual([]);
    // Not one DAM request in the three steps: no lookup, no registration.
    expect((await stats(sb)).byService.dam ?? 0).toBe(0);
    expect((await damImages(sb)).length).toBe(before);
    const [v, p, i] = steps(t);
    for (const [ref, [name, why]] of Object.entries(names)) {
      expect(v[ref], ref).toMatchObject({ outcome: 'valid' });
      expect(v[ref]!.warnings).toContain(`image '${url(name)}': the catalog refuses the name`);
      expect(v[ref]!.warnings).toContain(why);
      expect(v[ref]!.warnings).toContain('the import writes the record without it');
      expect(p[ref], ref).toMatchObject({ outcome: 'would-create' });
      expect(p[ref]!.warnings).toContain(`image ${url(name)} left out: the catalog refuses the name`);
      expect(i[ref], ref).toMatchObject({ outcome: 'created', message: '' });
      expect(i[ref]!.warnings).toContain(`image ${url(name)} left out: `);
      expect(i[ref]!.warnings).toContain(why);
    }
    const variants = await byRef(sb, '/Variants', 'frmt_ref');
    for (const ref of Object.keys(names)) expect(variants.get(ref)?.frmt_image ?? null, ref).toBeNull();
  });

  it('a list field in two languages, a file field, a plain name: the same rule; a comma is fine in a list', async () => {
    const { sb } = fixture;
    const file = await feed('list.csv', [
      'prod_ref,prod_title,prod_images,prod_images_fr,prod_manual',
      `AL-STAR,Star,${url('s*t.jpg')},${url('fr[1].jpg')},`,
      `AL-COMMA,Comma,${url('c%2Cd.jpg')},,`,
      `AL-FILE,File,,,${url('m%2Cn.pdf')}`,
      `AL-FILE2,File,,,${url('m%7Cn.pdf')}`,
      'AL-PLAIN,Plain,q?r.jpg,,',
    ]);
    await resetStats(sb);
    const t = await tryFeed(sb, file, { dir, profile: false, feed: ['--entity', 'products'] });
    expect(disagreements(t)).toEqual([]);
    // For `c,d.jpg` only (a list's value is an array: the comma is part of the name): the plan's
    // lookup, the import's lookup and POST, and the image library's mark after the registration.
    expect((await stats(sb)).byService.dam).toBe(4);
    expect((await damImages(sb)).map((a) => a.reference)).toContain('c,d.jpg');
    const [v, p, i] = steps(t);
    for (const step of [v, p, i]) {
      expect(step['AL-COMMA']!.warnings ?? '').not.toContain('left out');
      expect(step['AL-COMMA']!.warnings ?? '').not.toContain('refuses');
    }
    expect(i['AL-STAR']!.outcome).toBe('created');
    expect(i['AL-STAR']!.warnings).toContain(`image ${url('s*t.jpg')} left out: `);
    expect(i['AL-STAR']!.warnings).toContain(`image ${url('fr[1].jpg')} left out: `);
    expect(v['AL-STAR']!.warnings).toContain(`image '${url('fr[1].jpg')}': the catalog refuses`);
    expect(i['AL-FILE']!.warnings).toContain(
      `file ${url('m%2Cn.pdf')} left out: the catalog refuses the name 'm,n.pdf' in a field of one name`,
    );
    expect(v['AL-FILE']!.warnings).toContain(`file '${url('m%2Cn.pdf')}': the catalog refuses`);
    expect(i['AL-FILE2']!.warnings).toContain(`file ${url('m%7Cn.pdf')} left out: `);
    for (const step of [v, p])
      expect(step['AL-PLAIN']!.warnings).toContain("the catalog refuses the name 'q?r.jpg'");
    expect(i['AL-PLAIN']!.warnings).toContain(
      "image q?r.jpg left out: the catalog refuses the name 'q?r.jpg'",
    );
    for (const ref of ['AL-STAR', 'AL-COMMA', 'AL-FILE', 'AL-FILE2', 'AL-PLAIN'])
      expect(i[ref]!.outcome, ref).toBe('created');
    const en = await byRef(sb, '/Products', 'prod_ref');
    const fr = await byRef(sb, '/Products', 'prod_ref', 'fr');
    expect(en.get('AL-STAR')!.prod_images ?? []).toEqual([]);
    expect(fr.get('AL-STAR')!.prod_images ?? []).toEqual([]);
    expect(en.get('AL-COMMA')!.prod_images).toEqual(['c,d.jpg']);
    expect(en.get('AL-FILE')!.prod_manual ?? null).toBeNull();
    expect(en.get('AL-PLAIN')!.prod_images ?? []).toEqual([]);
  });

  it('--on-asset-error fail: invalid in validate, failed in the plan and the import, still without a DAM request', async () => {
    const { sb } = fixture;
    const file = await feed('strict.csv', [
      'frmt_ref,prod_ref,frmt_image',
      `AS-1,COTTON-TEE,${url('s*x.jpg')}`,
    ]);
    await resetStats(sb);
    const t = await tryFeed(sb, file, {
      dir,
      profile: false,
      feed: ['--entity', 'variants', '--on-asset-error', 'fail'],
    });
    expect(disagreements(t)).toEqual([]);
    expect((await stats(sb)).byService.dam ?? 0).toBe(0);
    const [v, p, i] = steps(t);
    expect(v['AS-1']).toMatchObject({ outcome: 'invalid', column: 'frmt_image' });
    expect(v['AS-1']!.message).toContain("the catalog refuses the name 's*x.jpg'");
    expect(p['AS-1']!.outcome).toBe('failed');
    expect(i['AS-1']!.outcome).toBe('failed');
    expect(i['AS-1']!.message).toContain("the catalog refuses the name 's*x.jpg'");
    expect((await byRef(sb, '/Variants', 'frmt_ref')).has('AS-1')).toBe(false);
  });
});
