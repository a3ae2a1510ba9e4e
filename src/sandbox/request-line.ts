// Past the server's header limit, Node refuses a request before any handler sees it, with only the
// chunk it was reading in hand. To answer the spec's 414 for a URL that long (and keep 431 for long
// headers), each connection measures the request line of its current request as the bytes arrive.
import type { Socket } from 'node:net';

const LINE_FEED = 0x0a;

interface Meter {
  length: number;
  open: boolean;
}

const meters = new WeakMap<Socket, Meter>();

/** Starts measuring a new connection's request lines. */
export function meterRequestLines(socket: Socket): void {
  const meter: Meter = { length: 0, open: true };
  meters.set(socket, meter);
  socket.on('data', (chunk: Buffer) => {
    if (!meter.open) return;
    const end = chunk.indexOf(LINE_FEED);
    if (end === -1) meter.length += chunk.length;
    else {
      meter.length += end;
      meter.open = false;
    }
  });
}

/** The response to the current request is complete: the next bytes start a new request line. */
export function nextRequestLine(socket: Socket | null): void {
  const meter = socket ? meters.get(socket) : undefined;
  if (meter) {
    meter.length = 0;
    meter.open = true;
  }
}

/** Bytes of the current request line so far (the whole line once its end arrived). */
export function requestLineLength(socket: Socket): number {
  return meters.get(socket)?.length ?? 0;
}
