// The reading thread: opens the source and reads and parses it while the other thread maps, validates
// and writes, sending rows in batches, at most a few batches ahead (backpressure).
import { parentPort, workerData } from 'node:worker_threads';
import { isCatalogIoError } from '../../errors.js';
import { openSource } from '../open.js';
import type { ControlMessage, ErrorMessage, ReaderMessage, RowExtra, ThreadInput } from './protocol.js';

const port = parentPort!;
const input = workerData as ThreadInput;
const send = (message: ReaderMessage) => port.postMessage(message);

let inFlight = 0;
let stopped = false;
let wake: (() => void) | undefined;
port.on('message', (message: ControlMessage) => {
  if (message.type === 'ack') inFlight -= 1;
  else stopped = true;
  wake?.();
  wake = undefined;
});

async function run(): Promise<void> {
  const opened = await openSource(input.spec, input.options);
  try {
    send({
      type: 'opened',
      format: opened.format,
      encoding: opened.encoding,
      delimiter: opened.delimiter,
      headers: [...opened.headers],
      notes: [...opened.notes],
      source: opened.source,
      totalBytes: opened.totalBytes,
    });
    const listIds = new Map<readonly string[], number>();
    const keyIds = new Map<string, number>();
    let newHeaderLists: string[][] = [];
    let newKeys: string[] = [];
    let data: unknown[] = [];
    let rows = 0;
    let headerCount = opened.headers.length;
    const flush = async () => {
      while (inFlight >= input.maxInFlight && !stopped) await new Promise<void>((r) => (wake = r));
      if (stopped) return;
      const grown = opened.headers.length !== headerCount;
      headerCount = opened.headers.length;
      send({
        type: 'rows',
        newHeaderLists,
        newKeys,
        data,
        bytesRead: opened.bytesRead(),
        ...(grown && { headers: [...opened.headers] }),
      });
      inFlight += 1;
      newHeaderLists = [];
      newKeys = [];
      data = [];
      rows = 0;
    };
    try {
      for await (const row of opened.rows) {
        const { location, values, headers } = row;
        // The rarer parts of a row travel in one object, null for the common row.
        let extra: RowExtra | null = null;
        if (location.sheet !== undefined || location.source !== opened.source || row.error) {
          extra = {};
          if (location.sheet !== undefined) extra.sheet = location.sheet;
          if (location.source !== opened.source) extra.source = location.source;
          if (row.error) extra.error = row.error;
        }
        data.push(location.text, location.line, row.index, extra);
        if (values && headers) {
          let id = listIds.get(headers);
          if (id === undefined) {
            id = listIds.size;
            listIds.set(headers, id);
            newHeaderLists.push([...headers]);
          }
          data.push(id);
          for (let i = 0; i < headers.length; i++) data.push(values[i] ?? null);
        } else {
          const { cells } = row;
          const countAt = data.length;
          data.push(0);
          let count = 0;
          for (const key in cells) {
            let id = keyIds.get(key);
            if (id === undefined) {
              id = keyIds.size;
              keyIds.set(key, id);
              newKeys.push(key);
            }
            data.push(id, cells[key]);
            count += 1;
          }
          data[countAt] = -count - 1;
        }
        rows += 1;
        if (rows >= input.batchRows) await flush();
        if (stopped) return;
      }
    } catch (err) {
      // The rows read before the failure go first: the inline reader hands them out before it throws.
      if (rows > 0) await flush();
      throw err;
    }
    if (rows > 0) await flush();
    if (!stopped) send({ type: 'end', bytesRead: opened.bytesRead(), notes: [...opened.notes] });
  } finally {
    await opened.close();
  }
}

run().then(
  () => port.close(),
  (err: unknown) => {
    const message: ErrorMessage = { type: 'error', message: (err as Error)?.message ?? String(err) };
    if (isCatalogIoError(err)) {
      message.code = err.code;
      if (err.location !== undefined) message.location = err.location;
      message.details = err.details;
    }
    send(message);
    port.close();
  },
);
