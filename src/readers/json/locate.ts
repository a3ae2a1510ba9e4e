// Where a JSON syntax error is: the tokenizer does not say, so the text is fed again to a fresh
// tokenizer, whole up to the chunk that failed and then one character at a time.
import { createTokenizer } from './tokenizer.js';

export interface TextPosition {
  line: number;
  column: number;
}

export class PositionTracker {
  line = 1;
  column = 1;

  advance(text: string): void {
    let at = text.indexOf('\n');
    if (at === -1) {
      this.column += text.length;
      return;
    }
    let last = at;
    while (at !== -1) {
      this.line++;
      last = at;
      at = text.indexOf('\n', at + 1);
    }
    this.column = text.length - last;
  }
}

/** Feeds `text` to a fresh tokenizer; `skipChars` characters go in whole before the careful part. */
export async function locateSyntaxError(
  text: AsyncIterable<string>,
  skipChars: number,
): Promise<(TextPosition & { message: string }) | undefined> {
  const tokenizer = createTokenizer();
  const position = new PositionTracker();
  let fed = 0;
  for await (const chunk of text) {
    const whole = Math.max(0, Math.min(chunk.length, skipChars - fed));
    if (whole > 0) {
      const part = chunk.slice(0, whole);
      try {
        tokenizer.write(part);
      } catch (err) {
        return { ...position, message: (err as Error).message };
      }
      position.advance(part);
      fed += whole;
    }
    for (let i = whole; i < chunk.length; i++) {
      const char = chunk[i]!;
      try {
        tokenizer.write(char);
      } catch (err) {
        return { ...position, message: (err as Error).message };
      }
      position.advance(char);
      fed++;
    }
  }
  try {
    tokenizer.end();
  } catch (err) {
    return { ...position, message: (err as Error).message };
  }
  return undefined;
}

/** The tokenizer's words, shortened for people: `expected ':'`. */
export function syntaxDetail(message: string): string {
  return message.replace(/^Parser (cannot parse input: |has )/, '');
}
