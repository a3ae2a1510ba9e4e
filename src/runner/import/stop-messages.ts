// What the report says of a row a stopped run did not finish, by why it stopped: the words name the
// setting or signal that stopped it and whether `--resume` takes the row up again.
import type { StopReason } from './types.js';

/** A row the run never sent: --resume tries it. */
export function notAttemptedMessage(reason: StopReason | undefined): string {
  switch (reason) {
    case 'SIGINT':
    case 'SIGTERM':
      return `not attempted: the run was interrupted (${reason}); --resume tries it`;
    case 'max-errors':
      return 'not attempted: --max-errors was reached';
    case 'auth':
      return 'not attempted: the API key was refused';
    case 'service':
      return 'not attempted: the service kept failing (--max-failed-batches); --resume tries it';
    case 'outage':
      return 'not attempted: the service could not be reached for longer than --outage-budget; --resume tries it';
    case 'lock-lost':
      return LOCK_LOST_NOT_ATTEMPTED;
    default:
      return 'not attempted';
  }
}

/** A row whose writes were not sent, or not reached, because the run lost its lock. */
export const LOCK_LOST_NOT_ATTEMPTED =
  'not attempted: the run lost its lock (another run may hold it), so its write was not sent; --resume tries it';

/** A row whose requests were under way when the run stopped: --resume checks what was written. */
export function notFinishedMessage(reason: StopReason | undefined): string {
  const why =
    reason === 'outage'
      ? 'the service could not be reached for longer than --outage-budget'
      : reason === 'lock-lost'
        ? 'the run lost its lock'
        : `the run was interrupted (${reason ?? 'stopped'})`;
  return `not finished: ${why} before the service answered; --resume checks it and finishes it`;
}

/**
 * What checks a row whose write may have been made, unchecked: --resume, or the next run; for a sheet
 * of a workbook imported whole (which --resume refuses), the next run.
 */
export function checkAdvice(workbookSheet: boolean): string {
  return workbookSheet
    ? 'the next run checks it and finishes it'
    : '--resume (or the next run) checks it and finishes it';
}
