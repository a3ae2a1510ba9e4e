// --wait-for-images: poll the images this run registered until processed; report those that ended in
// error (a report line each, naming the rows that use it) and warn about those still processing.
import type { DamClient } from '../../api/dam.js';
import type { AssetRegistrar } from './assets.js';
import type { RunRecorder } from './recorder.js';
import { EMPTY_LINE } from './report-line.js';

export async function waitForImages(
  dam: DamClient,
  registrar: AssetRegistrar,
  imageRows: Map<string, string[]>,
  settings: { timeoutMs?: number; intervalMs?: number },
  recorder: RunRecorder,
): Promise<{ failed: string[]; warnings: string[] }> {
  const failed: string[] = [];
  const stillProcessing: string[] = [];
  for (const reference of new Set(registrar.newImages)) {
    const record = await dam.waitForImage(reference, settings);
    if (record.status === 'Er') {
      failed.push(reference);
      const rows = imageRows.get(reference) ?? [];
      recorder.extra({
        ...EMPTY_LINE,
        location: rows.join('; '),
        entity: 'images',
        ref: reference,
        outcome: 'failed',
        message: `the DAM could not process image '${reference}' (status Er); rows using it: ${rows.join(', ') || 'see the report'}`,
      });
    } else if (record.status !== 'Ok') {
      // Still processing when the wait ended: not a failure, but its outcome is unknown.
      stillProcessing.push(reference);
    }
  }
  const warnings: string[] = [];
  if (stillProcessing.length > 0) {
    const shown = stillProcessing.slice(0, 10).join(', ');
    const more = stillProcessing.length > 10 ? ` and ${stillProcessing.length - 10} more` : '';
    warnings.push(
      `${stillProcessing.length} image(s) were still being processed when --wait-for-images gave up: ${shown}${more}; their outcome is unknown`,
    );
  }
  return { failed, warnings };
}
