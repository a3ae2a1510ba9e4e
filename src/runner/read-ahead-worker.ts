// The read-ahead thread: opens the source and reads + parses it while the other thread maps and validates,
// sending rows in batches, at most a few batches ahead (backpressure).
import { parentPort, workerData } from 'node:worker_threads';
import { isCatalogIoError } from '../errors.js';
import { openSource } from '../readers/index.js';
import type { AheadInput, AheadMessage, ControlMessage, ErrorMessage } from './read-ahead-protocol.js';

const port = parentPort!;
const input = workerData as AheadInput;
const send = (message: AheadMessage) => port.postMessage(message);

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
    const keyIds = new Map<string, number>();
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
        newKeys,
        data,
        bytesRead: opened.bytesRead(),
        ...(grown && { headers: [...opened.headers] }),
      });
      inFlight += 1;
      newKeys = [];
      data = [];
      rows = 0;
    };
    for await (const row of opened.rows) {
      const { location, cells } = row;
      data.push(
        location.text,
        location.line,
        row.index,
        location.sheet ?? null,
        location.source === opened.source ? null : location.source,
        row.error?.code ?? null,
        row.error?.message ?? null,
      );
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
      data[countAt] = count;
      rows += 1;
      if (rows >= input.batchRows) await flush();
      if (stopped) return;
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
    }
    send(message);
    port.close();
  },
);
