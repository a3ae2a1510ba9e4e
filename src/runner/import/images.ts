// --wait-for-images: poll the images this run registered until processed; report those that ended in
// error (a report line each, naming the rows that use it) and warn about those still processing.
// The whole wait is bounded (a minute by default, all images together): a DAM that is slow, hangs
// or fails makes a warning on the finished run, never a failed one.
import type { DamClient, ImageRecord } from '../../api/dam.js';
import { formatDuration } from '../../api/deadline.js';
import { isApiError } from '../../api/errors.js';
import type { AssetRegistrar } from './assets.js';
import type { RunRecorder } from './recorder.js';
import { EMPTY_LINE } from './report-line.js';

/** How long --wait-for-images waits in all, for every image of the run together. */
export const WAIT_FOR_IMAGES_MS = 60_000;

export async function waitForImages(
  dam: DamClient,
  registrar: AssetRegistrar,
  imageRows: Map<string, string[]>,
  settings: { timeoutMs?: number; intervalMs?: number },
  recorder: RunRecorder,
): Promise<{ failed: string[]; warnings: string[] }> {
  const failed: string[] = [];
  const unknown: string[] = [];
  const totalMs = settings.timeoutMs ?? WAIT_FOR_IMAGES_MS;
  const deadline = Date.now() + totalMs;
  let trouble: string | undefined;
  for (const reference of new Set(registrar.newImages)) {
    const left = deadline - Date.now();
    if (left <= 0 || trouble) {
      unknown.push(reference);
      continue;
    }
    let record: ImageRecord | undefined;
    try {
      record = await within(
        left,
        dam.waitForImage(reference, {
          timeoutMs: left,
          ...(settings.intervalMs !== undefined && { intervalMs: settings.intervalMs }),
        }),
      );
      // No answer before the wait ended: the DAM hangs; the images not asked yet are not asked.
      if (record === undefined) trouble = `no answer about '${reference}' within the wait`;
    } catch (err) {
      if (!isApiError(err)) throw err;
      // The DAM cannot say: the images not known yet stay unknown, the run is not failed for it.
      trouble = err.message;
    }
    if (record?.status === 'Er') {
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
    } else if (record?.status !== 'Ok') {
      // Still processing when the wait ended, or not asked: not a failure, but its outcome is unknown.
      unknown.push(reference);
    }
  }
  const warnings: string[] = [];
  if (unknown.length > 0) {
    const shown = unknown.slice(0, 10).join(', ');
    const more = unknown.length > 10 ? ` and ${unknown.length - 10} more` : '';
    const why = trouble
      ? `the DAM could not be asked (${trouble})`
      : `they were still being processed after ${formatDuration(totalMs)}`;
    warnings.push(
      `--wait-for-images: the outcome of ${unknown.length} image(s) is unknown, ${why}: ${shown}${more}`,
    );
  }
  return { failed, warnings };
}

/** The answer of `work`, or undefined once `ms` have passed (the request is cut when the run closes). */
async function within<T>(ms: number, work: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
    // A request still going after the wait ended is cut when the run closes; its failure is not news.
    work.catch(() => undefined);
  }
}
