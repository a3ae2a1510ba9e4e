// The report, rejects and summary of a small mixed feed, pinned byte for byte: speed work on the
// validate path must not change what a person reads. Regenerate only for an intended change of wording.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Profile } from '../../src/mappers/profile-types.js';
import { validateFile } from '../../src/runner/validate.js';
import { demoModel } from '../mappers/demo-model.js';

const FEED = [
  'sku,name,name_fr,weight,pack,season,labels,tags,released,category,image,_command,extra',
  'P-1,Mug,Tasse,"0,35",6,summer,organic|vegan,a|b,2025-01-02,CAT-1,https://img.example/p1.jpg,,x',
  'P-2,Pan,,heavy,6.5,Monsoon,organic|plastic,,2025-02-30,CAT-1|CAT-2,,,',
  'P-1,Mug again,,1,1,,,,,,,,',
  ',No ref,,1,1,,,,,,,,',
  'P-3,Skipped,,bad,,,,,,,,IGNORE,',
  ',,,,,,,,,,,,',
  `P-4,${'T'.repeat(300)},Titre,2,3,WINTER,,${'t'.repeat(60)},2025-03-04,,ftp://nope,,`,
  'P-5,Kettle,"Bouilloire ""XL""",1.5,2,autumn,fair-trade,x|y|z,2025-12-31,,p5.png,NEW,',
  'P-6,Pot,,,,,,,,,,DROP,',
  'P-7,"Line, with comma",,"1,2O",,,,,,,,DELETE,',
  'P-8,Cup,,1e3,0,,,,,,,,',
].join('\n');

const PROFILE: Profile = {
  entity: 'products',
  columns: {
    sku: 'prod_ref',
    name: 'prod_title',
    name_fr: { field: 'prod_title', culture: 'fr' },
    weight: 'prod_weight',
    pack: 'prod_pack_size',
    season: 'prod_season',
    labels: 'prod_labels',
    tags: 'prod_tags',
    released: 'prod_release_date',
    category: 'cat_refs',
    image: 'prod_images',
  },
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'validate-pinned-'));
  await writeFile(join(dir, 'feed.csv'), FEED);
});

async function run(report: string, strict: boolean) {
  return validateFile({
    source: join(dir, 'feed.csv'),
    model: demoModel(),
    profile: PROFILE,
    strict,
    reportFile: join(dir, report),
    rejectsFile: join(dir, `rejects-${report}.csv`),
  });
}

describe('validate output is pinned', () => {
  it('CSV report, rejects and summary', async () => {
    const result = await run('report.csv', true);
    expect(await readFile(join(dir, 'report.csv'), 'utf8')).toMatchSnapshot('report.csv');
    expect(await readFile(join(dir, 'rejects-report.csv.csv'), 'utf8')).toMatchSnapshot('rejects.csv');
    expect({
      rows: result.rows,
      outcomes: result.outcomes,
      topErrors: result.topErrors,
      warnings: result.warnings,
    }).toMatchSnapshot('summary');
  });

  it('JSON Lines report, not strict', async () => {
    const result = await run('report.jsonl', false);
    expect(await readFile(join(dir, 'report.jsonl'), 'utf8')).toMatchSnapshot('report.jsonl');
    expect(result.outcomes).toMatchSnapshot('outcomes');
  });
});
