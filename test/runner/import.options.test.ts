// importFile refuses an option of no known value (mode: 'bogus' upserted silently) with CONFIG_INVALID
// naming the option and its values, before anything is written or kept as a run.
import { describe, expect, it } from 'vitest';
import { isCatalogIoError } from '../../src/errors.js';
import { useSandbox } from '../helpers/sandbox.js';
import { importWith, tempDir, writeFeed } from './import.support.js';

const fixture = useSandbox({ seed: 'empty' });

describe('importFile options', () => {
  it('mode, missing, onAssetError, onDuplicateAsset outside their values are CONFIG_INVALID; nothing is written', async () => {
    const dir = tempDir('import-options');
    const feed = await writeFeed(dir, 'feed.csv', 'prod_ref,prod_title\nOPT-1,One\n');
    const refused: Array<[Record<string, unknown>, string]> = [
      [{ mode: 'bogus' }, 'importFile: mode must be one of upsert, create, update; found "bogus"'],
      [{ missing: 'remove' }, 'importFile: missing must be one of ignore, delete; found "remove"'],
      [{ onAssetError: 'skip' }, 'importFile: onAssetError must be one of warn, fail'],
      [{ onDuplicateAsset: 'keep' }, 'importFile: onDuplicateAsset must be one of reuse, replace, fail'],
    ];
    for (const [options, message] of refused) {
      const err = await importWith(fixture.sb, feed, options as never).catch((e: unknown) => e);
      expect(isCatalogIoError(err, 'CONFIG_INVALID'), `${JSON.stringify(options)}: ${String(err)}`).toBe(
        true,
      );
      expect((err as Error).message).toContain(message);
    }
    // Refused before any write: the feed's record is new to the tenant, so `create` still creates it.
    const written = await importWith(fixture.sb, feed, { mode: 'create' });
    expect(written.outcomes.created).toBe(1);
  });
});
