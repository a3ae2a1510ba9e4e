// The readers' public surface: openSource() and the types it speaks.

export { RowPuller } from './batched.js';
export { FORMATS, type Format } from './format.js';
export { checkSource, type OpenedSource, openSource, sheetsReadWhole, workbookSheets } from './open.js';
export { DEFAULT_MAX_CELL_BYTES, parseSize, type ReaderOptions } from './options.js';
export { displayName } from './sources/redact.js';
export { openSourceThreaded, READ_THREAD_MODES, type ReadThread } from './thread/open-on-thread.js';
export type { Cell, Location, SourceRow } from './types.js';
