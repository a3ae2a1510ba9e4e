// A part thread of validate: checks the parts of a CSV file it is given (part-check.ts) and sends back
// each part's report and rejects lines as text, its counts, and the refs its rows asked the duplicate
// check about (the main thread answers them).
import { parentPort } from 'node:worker_threads';
import { modelFromData } from '../../schema/build.js';
import { registerSecret } from '../../secrets.js';
import { PartChecker } from './part-check.js';
import type { PartMessage, PartThreadInput } from './protocol.js';

const port = parentPort!;
let parts: PartChecker | undefined;

// The first message is what parts are checked against (the thread starts before the file is opened);
// then parts, checked one at a time, in the order they come.
let queue = Promise.resolve();
port.on('message', (message: PartMessage | PartThreadInput) => {
  if (!parts) {
    const input = message as PartThreadInput;
    for (const secret of input.secrets) registerSecret(secret);
    parts = new PartChecker(input, modelFromData(input.model));
    port.postMessage('ready');
    return;
  }
  const checker = parts;
  queue = queue.then(async () => {
    const result = await checker.check(message as PartMessage);
    port.postMessage(result, [
      ...(result.bytes ? [result.bytes] : []),
      ...(result.report ? [result.report] : []),
      result.refs.hashes.buffer as ArrayBuffer,
      result.refs.lines.buffer as ArrayBuffer,
    ]);
  });
});
