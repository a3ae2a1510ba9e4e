// Images and files named by URL: registered once per URL per run and across runs (cache file), the
// duplicate policies on 409, a URL the DAM refuses, two URLs with one file name, --wait-for-images.
import { beforeAll, describe, expect, it } from 'vitest';
import { call, useSandbox } from '../helpers/sandbox.js';
import {
  byRef,
  damImages,
  importWith,
  readCsv,
  resetStats,
  stats,
  tempDir,
  writeFeed,
} from './import.support.js';

// Processing slow enough that a PATCH right after a POST meets the 409 of an image in processing.
const fixture = useSandbox({ seed: 'empty', processingMs: 400 });
let dir: string;

beforeAll(() => {
  dir = tempDir('import-assets');
});

const url = (name: string) => `${fixture.sb.assetsUrl}/${name}`;

async function postImage(imageUrl: string): Promise<void> {
  const res = await call(fixture.sb.damUrl, '/images', {
    method: 'POST',
    key: fixture.sb.apiKey,
    body: { url: imageUrl },
  });
  expect(res.status, res.text).toBe(201);
}

async function image(reference: string): Promise<Record<string, unknown>> {
  const res = await call(fixture.sb.damUrl, `/images(${encodeURIComponent(reference)})`, {
    key: fixture.sb.apiKey,
  });
  expect(res.status, res.text).toBe(200);
  const body = res.body as { value?: Record<string, unknown> } & Record<string, unknown>;
  return body.value ?? body;
}

describe('registration and reuse', () => {
  it('two rows with one URL: one POST /images, both rows name the reference', async () => {
    const { sb } = fixture;
    const feed = await writeFeed(
      dir,
      'shared.csv',
      `prod_ref,prod_title,prod_images\nI-1,One,${url('shared-1.jpg')}\nI-2,Two,${url('shared-1.jpg')}\n`,
    );
    const before = (await damImages(sb)).length;
    await resetStats(sb);
    const report = `${dir}/shared.report.csv`;
    const summary = await importWith(sb, feed, { reportFile: report });
    expect(summary.outcomes.created).toBe(2);
    expect(summary.assets).toMatchObject({ registered: 1 });
    // 2 catalog POSTs + 1 DAM POST.
    expect((await stats(sb)).byMethod.POST).toBe(3);
    expect((await damImages(sb)).length).toBe(before + 1);
    const products = await byRef(sb, '/Products', 'prod_ref');
    expect(products.get('I-1')!.prod_images).toEqual(['shared-1.jpg']);
    expect(products.get('I-2')!.prod_images).toEqual(['shared-1.jpg']);
    const lines = await readCsv(report);
    expect(lines[0]!.assets).toBe(`${url('shared-1.jpg')} registered`);
  });

  it('across runs: the cache file spares every DAM POST; --refresh-assets checks again', async () => {
    const { sb } = fixture;
    const cacheFile = `${dir}/cache/assets.json`;
    const first = await writeFeed(
      dir,
      'cache1.csv',
      `prod_ref,prod_title,prod_images\nJ-1,One,${url('cached-1.png')}\nJ-2,Two,${url('cached-2.png')}\n`,
    );
    expect((await importWith(sb, first, { assetCacheFile: cacheFile })).assets.registered).toBe(2);

    // New products naming the same URLs: only the catalog POSTs are sent.
    const second = await writeFeed(
      dir,
      'cache2.csv',
      `prod_ref,prod_title,prod_images\nJ-3,Three,${url('cached-1.png')}\nJ-4,Four,${url('cached-2.png')}\n`,
    );
    await resetStats(sb);
    const cached = await importWith(sb, second, { assetCacheFile: cacheFile });
    expect(cached.outcomes.created).toBe(2);
    expect(cached.assets).toMatchObject({ cached: 2, registered: 0 });
    expect((await stats(sb)).byMethod.POST).toBe(2);

    // --refresh-assets ignores the cache: the DAM is asked (one lookup for up to 100 names) and the
    // existing image is reused without a POST or a 409.
    const third = await writeFeed(
      dir,
      'cache3.csv',
      `prod_ref,prod_title,prod_images\nJ-5,Five,${url('cached-1.png')}\n`,
    );
    await resetStats(sb);
    const refreshed = await importWith(sb, third, { assetCacheFile: cacheFile, refreshAssets: true });
    expect(refreshed.outcomes.created).toBe(1);
    expect(refreshed.assets).toMatchObject({ reused: 1, cached: 0 });
    const s = await stats(sb);
    expect(s.byMethod.POST).toBe(1);
    expect(s.byStatus['409'] ?? 0).toBe(0);
  });

  it('without a cache, names the DAM already has cost one lookup per 100, not a POST each', async () => {
    const { sb } = fixture;
    const rows = ['prod_ref,prod_title,prod_images'];
    for (let i = 0; i < 3; i++) rows.push(`K-${i},Item ${i},${url(`known-${i}.png`)}`);
    const feed = await writeFeed(dir, 'known.csv', `${rows.join('\n')}\n`);
    expect((await importWith(sb, feed)).assets.registered).toBe(3);
    const again = await writeFeed(dir, 'known2.csv', `${rows.join('\n').replaceAll('K-', 'L-')}\n`);
    await resetStats(sb);
    const summary = await importWith(sb, again);
    expect(summary.assets).toMatchObject({ reused: 3, registered: 0 });
    const s = await stats(sb);
    expect(s.byMethod.POST).toBe(3); // the three products, no POST /images
    expect(s.byStatus['409'] ?? 0).toBe(0);
  });
});

describe('multilingual image fields', () => {
  it('a URL per language: each registered, written in one request as {culture: name}', async () => {
    const { sb } = fixture;
    const feed = await writeFeed(
      dir,
      'cultures.csv',
      `prod_ref,prod_title,prod_images,prod_images_fr\nML-1,One,${url('ml-en.jpg')},${url('ml-fr.jpg')}\n`,
    );
    await resetStats(sb);
    const summary = await importWith(sb, feed);
    expect(summary.outcomes.created).toBe(1);
    expect(summary.assets).toMatchObject({ registered: 2 });
    // 2 DAM POSTs + 1 catalog POST carrying both languages.
    expect((await stats(sb)).byMethod.POST).toBe(3);
    expect((await byRef(sb, '/Products', 'prod_ref')).get('ML-1')!.prod_images).toEqual(['ml-en.jpg']);
    expect((await byRef(sb, '/Products', 'prod_ref', 'fr')).get('ML-1')!.prod_images).toEqual(['ml-fr.jpg']);

    await resetStats(sb);
    const again = await importWith(sb, feed);
    expect(again.outcomes.unchanged).toBe(1);
    expect((await stats(sb)).byMethod.POST ?? 0).toBe(0);
  });
});

describe('tags', () => {
  it("a column's tags go with the registration and are on the DAM record", async () => {
    const { sb } = fixture;
    const feed = await writeFeed(
      dir,
      'tags.csv',
      `prod_ref,prod_title,Photo\nT-1,One,${url('tagged-1.jpg')}\n`,
    );
    const summary = await importWith(sb, feed, {
      profile: {
        entity: 'products',
        columns: { Photo: { field: 'prod_images', tags: ['supplier-x', 'spring 2026'] } },
      },
    });
    expect(summary.assets.registered).toBe(1);
    expect((await image('tagged-1.jpg')).tags).toEqual(['supplier-x', 'spring 2026']);
  });
});

describe('409: the DAM already has that name', () => {
  it('reuse (the default) names the existing image', async () => {
    const { sb } = fixture;
    await postImage(url('dup-reuse.jpg'));
    const feed = await writeFeed(
      dir,
      'reuse.csv',
      `prod_ref,prod_title,prod_images\nU-1,One,${url('dup-reuse.jpg')}\n`,
    );
    const summary = await importWith(sb, feed);
    expect(summary.outcomes.created).toBe(1);
    expect(summary.assets.reused).toBe(1);
    expect((await byRef(sb, '/Products', 'prod_ref')).get('U-1')!.prod_images).toEqual(['dup-reuse.jpg']);
  });

  it('fail: the row fails with the DAM message', async () => {
    const { sb } = fixture;
    await postImage(url('dup-fail.jpg'));
    const feed = await writeFeed(
      dir,
      'fail.csv',
      `prod_ref,prod_title,prod_images\nF-1,One,${url('dup-fail.jpg')}\nF-2,Two,\n`,
    );
    const report = `${dir}/fail.report.csv`;
    const summary = await importWith(sb, feed, {
      onDuplicateAsset: 'fail',
      onAssetError: 'fail',
      reportFile: report,
    });
    expect(summary.outcomes).toMatchObject({ created: 1, failed: 1 });
    const line = (await readCsv(report))[0]!;
    expect(line.outcome).toBe('failed');
    expect(line.message).toContain(url('dup-fail.jpg'));
    expect(line.message).toMatch(/already exists/);
    expect((await byRef(sb, '/Products', 'prod_ref')).has('F-1')).toBe(false);
  });

  it('replace: waits out the 409 of an image still processing, then replaces its content', async () => {
    const { sb } = fixture;
    await postImage(url('dup-replace.jpg'));
    expect((await image('dup-replace.jpg')).status).toBe('Up');
    const newer = `${sb.assetsUrl}/v2/dup-replace.jpg?w=20&h=10`;
    const feed = await writeFeed(dir, 'replace.csv', `prod_ref,prod_title,prod_images\nQ-1,One,"${newer}"\n`);
    await resetStats(sb);
    const summary = await importWith(sb, feed, { onDuplicateAsset: 'replace' });
    expect(summary.outcomes.created).toBe(1);
    expect(summary.assets.registered).toBe(1);
    const s = await stats(sb);
    // The name is known from one lookup (no POST); the PATCH is refused at least once while processing.
    expect(s.byStatus['409']).toBeGreaterThanOrEqual(1);
    expect(s.byMethod.PATCH).toBeGreaterThanOrEqual(2);
    const record = await image('dup-replace.jpg');
    expect(record.originalUrl).toBe(newer);
  });
});

describe('URLs the DAM refuses', () => {
  it('--on-asset-error fail: a 400 fails only the rows using that URL', async () => {
    const { sb } = fixture;
    const broken = url('gone.jpg?status=404');
    const feed = await writeFeed(
      dir,
      'refused.csv',
      `prod_ref,prod_title,prod_images\nG-1,One,${broken}\nG-2,Two,${url('fine-g.jpg')}\nG-3,Three,${broken}\n`,
    );
    const report = `${dir}/refused.report.csv`;
    const summary = await importWith(sb, feed, { reportFile: report, onAssetError: 'fail' });
    expect(summary.outcomes).toMatchObject({ created: 1, failed: 2 });
    expect(summary.assets).toMatchObject({ registered: 1, failed: 1 });
    const lines = await readCsv(report);
    expect(lines.map((l) => l.outcome)).toEqual(['failed', 'created', 'failed']);
    expect(lines[0]!.message).toContain(broken);
    expect(lines[0]!.message).toMatch(/404/);
    expect(lines[2]!.message).toBe(lines[0]!.message);
    expect(summary.assetWarnings).toBe(0);
    expect((await byRef(sb, '/Products', 'prod_ref')).has('G-1')).toBe(false);
  });

  it('two different URLs with the same file name: the second is left out, with a warning', async () => {
    const { sb } = fixture;
    const a = `${sb.assetsUrl}/a/same-name.jpg`;
    const b = `${sb.assetsUrl}/b/same-name.jpg`;
    const feed = await writeFeed(
      dir,
      'same.csv',
      `prod_ref,prod_title,prod_images\nN-1,One,${a}\nN-2,Two,${b}\n`,
    );
    const report = `${dir}/same.report.csv`;
    const summary = await importWith(sb, feed, { reportFile: report, concurrency: 1 });
    expect(summary.outcomes).toMatchObject({ created: 2, failed: 0 });
    expect(summary.assetWarnings).toBe(1);
    const warned = (await readCsv(report)).find((l) => l.warnings !== '')!;
    expect(warned.outcome).toBe('created');
    expect(warned.warnings).toMatch(/file name 'same-name.jpg' is already used in this run by/);
    const products = await byRef(sb, '/Products', 'prod_ref');
    const [first, second] = warned.ref === 'N-2' ? ['N-1', 'N-2'] : ['N-2', 'N-1'];
    expect(products.get(first!)!.prod_images).toEqual(['same-name.jpg']);
    expect(products.get(second!)!.prod_images ?? []).toEqual([]);
  });

  it('the same two URLs on a later night, rows reordered: the name stays with its first URL', async () => {
    const { sb } = fixture;
    const apple = `${sb.assetsUrl}/apple/qa-photo.jpg`;
    const banana = `${sb.assetsUrl}/banana/qa-photo.jpg`;
    const cacheFile = `${dir}/cache-reorder/assets.json`;
    const night1 = await writeFeed(
      dir,
      'reorder1.csv',
      `prod_ref,prod_title,prod_images\nCOL-A,Apple,${apple}\nCOL-B,Banana,${banana}\n`,
    );
    await importWith(sb, night1, { assetCacheFile: cacheFile, concurrency: 1 });
    const night2 = await writeFeed(
      dir,
      'reorder2.csv',
      `prod_ref,prod_title,prod_images\nCOL-B,Banana,${banana}\nCOL-A,Apple,${apple}\n`,
    );
    for (const plan of [true, false]) {
      const report = `${dir}/reorder2.${plan}.report.csv`;
      const summary = await importWith(sb, night2, { assetCacheFile: cacheFile, reportFile: report, plan });
      expect(summary.outcomes.failed).toBe(0);
      const lines = await readCsv(report);
      // Banana's row is told why, and is not given apple's file under that name.
      expect(lines[0]!.ref).toBe('COL-B');
      expect(lines[0]!.outcome).toBe('unchanged');
      expect(lines[0]!.warnings).toContain(
        `The file name 'qa-photo.jpg' is the DAM's image registered by an earlier run from ${apple}`,
      );
      expect(lines[1]!.ref).toBe('COL-A');
      expect(lines[1]!.warnings).toBe('');
    }
    const products = await byRef(sb, '/Products', 'prod_ref');
    expect(products.get('COL-A')!.prod_images).toEqual(['qa-photo.jpg']);
    expect(products.get('COL-B')!.prod_images ?? []).toEqual([]);
  });

  it('a cell of several URLs read as one (no split): left out with a warning, never registered', async () => {
    const { sb } = fixture;
    const cell = `${url('several-1.jpg')},${url('several-2.jpg')}`;
    const feed = await writeFeed(
      dir,
      'several.csv',
      `prod_ref,prod_title,prod_images\nSEV-1,Several,"${cell}"\n`,
    );
    for (const plan of [true, false]) {
      const report = `${dir}/several.${plan}.report.csv`;
      await resetStats(sb);
      const summary = await importWith(sb, feed, { reportFile: report, plan });
      expect(summary.outcomes[plan ? 'would-create' : 'created']).toBe(1);
      expect((await readCsv(report))[0]!.warnings).toContain(
        `image ${cell} left out: it holds several URLs read as one (give the column its list separator: "split")`,
      );
      // No DAM request at all (the product's POST only, on the import).
      expect((await stats(sb)).byMethod.POST ?? 0).toBe(plan ? 0 : 1);
    }
    expect((await byRef(sb, '/Products', 'prod_ref')).get('SEV-1')!.prod_images ?? []).toEqual([]);
  });
});

describe('--wait-for-images', () => {
  it('reports an image whose processing failed, with the rows that use it', async () => {
    const { sb } = fixture;
    const bad = url('bad-proc.png?process=fail');
    const feed = await writeFeed(
      dir,
      'wait.csv',
      `prod_ref,prod_title,prod_images\nH-1,One,${bad}\nH-2,Two,${url('good-proc.png')}\n`,
    );
    const report = `${dir}/wait.report.csv`;
    const summary = await importWith(sb, feed, {
      reportFile: report,
      waitForImages: { timeoutMs: 10_000, intervalMs: 100 },
    });
    expect(summary.outcomes.created).toBe(2);
    expect(summary.failedImages).toEqual(['bad-proc.png']);
    const lines = await readCsv(report);
    const imageLine = lines.find((l) => l.entity === 'images')!;
    expect(imageLine).toMatchObject({ ref: 'bad-proc.png', outcome: 'failed', location: 'line 2' });
    expect(imageLine.message).toMatch(/could not process image 'bad-proc.png' \(status Er\)/);
    expect((await image('good-proc.png')).status).toBe('Ok');
  });

  it('an image still processing when the wait ends is a warning, not a failure', async () => {
    const { sb } = fixture;
    const feed = await writeFeed(
      dir,
      'wait-short.csv',
      `prod_ref,prod_title,prod_images\nH-3,Three,${url('slow-proc.png')}\n`,
    );
    // The sandbox takes 400 ms to process an image; the wait gives up after 100 ms (on a busy machine
    // before the status read has answered: then the DAM could not be asked within the wait).
    const summary = await importWith(sb, feed, { waitForImages: { timeoutMs: 100, intervalMs: 10 } });
    expect(summary.outcomes.created).toBe(1);
    expect(summary.failedImages).toEqual([]);
    expect(summary.warnings.join('\n')).toMatch(
      /--wait-for-images: the outcome of 1 image\(s\) is unknown, (they were still being processed after 100 ms|the DAM could not be asked \(no answer about 'slow-proc\.png' within the wait\)): slow-proc\.png/,
    );
  });
});
