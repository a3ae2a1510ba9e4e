// The one place the XLSX reader meets saxes: a part's bytes decoded as they stream (a character split
// between chunks stays whole), element names without their namespace prefix, and nothing reported after
// the first error.
import { SaxesParser, type SaxesTagPlain } from 'saxes';

export interface XmlHandlers {
  open?(name: string, attributes: Record<string, string>): void;
  close?(name: string): void;
  text?(text: string): void;
}

/**
 * Feeds the part to the handlers a chunk at a time, pausing after each chunk so that the caller can take
 * what the handlers made of it; a malformed part throws on the next step, after what came before it.
 */
export async function* xmlChunks(
  chunks: AsyncIterable<Buffer | string>,
  handlers: XmlHandlers,
): AsyncGenerator<void> {
  const parser = new SaxesParser({ position: false });
  let failure: Error | undefined;
  parser.on('error', (err) => {
    failure ??= err;
  });
  const { open, close, text } = handlers;
  if (open)
    parser.on('opentag', (tag) => {
      if (!failure) open(localName(tag.name), (tag as SaxesTagPlain).attributes);
    });
  if (close)
    parser.on('closetag', (tag) => {
      if (!failure) close(localName(tag.name));
    });
  if (text) {
    const collect = (value: string) => {
      if (!failure) text(value);
    };
    parser.on('text', collect);
    parser.on('cdata', collect);
  }
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of chunks) {
    const piece = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    if (piece && !failure) parser.write(piece);
    yield;
    if (failure) throw failure;
  }
  const rest = decoder.decode();
  if (rest && !failure) parser.write(rest);
  if (!failure) parser.close();
  yield;
  if (failure) throw failure;
}

/** Reads a whole part through the handlers. */
export async function readXml(chunks: AsyncIterable<Buffer | string>, handlers: XmlHandlers): Promise<void> {
  for await (const _ of xmlChunks(chunks, handlers)) {
    // the handlers gather what they need
  }
}

/** `x:row` -> `row`: some writers prefix SpreadsheetML's names. */
export function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}
