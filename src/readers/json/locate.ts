// Where a JSON syntax error is. The tokenizer does not say, and it cannot be rewound, so the reader
// feeds it text cut after line breaks: at such a cut the tokenizer holds nothing back, and its state
// is fully described by the open containers and the last token. From there a fresh tokenizer is put
// in the same state with a few synthetic characters, and the failing text is fed again one character
// at a time. No second read of the source is needed, so stdin and URLs get exact positions too.
import { createTokenizer } from './tokenizer.js';

export interface TextPosition {
  line: number;
  column: number;
}

export class PositionTracker implements TextPosition {
  line: number;
  column: number;

  constructor(start: TextPosition = { line: 1, column: 1 }) {
    this.line = start.line;
    this.column = start.column;
  }

  /** Counts line breaks with indexOf: cheap enough for every chunk of the hot path. */
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

/** The tokenizer's state at a clean cut, as the reader knows it from the tokens it consumed. */
export interface TokenState {
  /** Open containers, outermost first: true for an array, false for an object. */
  containers: boolean[];
  /** Name of the last token produced, if any. */
  lastToken: string | undefined;
  /** Last non-whitespace character fed: a `,` or `:` is consumed without producing a token. */
  lastChar: string;
}

/**
 * Synthetic JSON text that brings a fresh tokenizer to `state`: `[{"":[0,` is "inside an array in
 * an object in an array, after a value and its comma". Keys and values are placeholders; only the
 * structure matters for where the next error is found.
 */
export function replayPrefix(state: TokenState): string {
  const { containers, lastToken, lastChar } = state;
  let text = '';
  for (let i = 0; i < containers.length; i++) {
    const innermost = i === containers.length - 1;
    text += containers[i] ? '[' : innermost ? '{' : '{"":';
  }
  if (lastToken === undefined || lastToken === 'startArray' || lastToken === 'startObject') return text;
  if (lastToken === 'keyValue') return `${text}""${lastChar === ':' ? ':' : ''}`;
  // A value (or a closed container) came last, in an array, an object or at the top level.
  const inObject = containers.length > 0 && !containers[containers.length - 1];
  text += inObject ? '"":0' : '0';
  return lastChar === ',' ? `${text},` : text;
}

/**
 * Feeds `prefix`, then `passed` (text the reader's tokenizer accepted), then `failing` one character
 * at a time to a fresh tokenizer; returns the position of the character it rejects.
 */
export function locateInText(
  prefix: string,
  passed: string[],
  failing: string,
  start: TextPosition,
): (TextPosition & { message: string }) | undefined {
  const tokenizer = createTokenizer();
  const position = new PositionTracker(start);
  try {
    tokenizer.write(prefix);
    for (const text of passed) {
      tokenizer.write(text);
      position.advance(text);
    }
  } catch {
    return undefined; // the synthetic state did not match: the caller keeps its coarser location
  }
  for (let i = 0; i < failing.length; i++) {
    const char = failing[i]!;
    try {
      tokenizer.write(char);
    } catch (err) {
      return { line: position.line, column: position.column, message: (err as Error).message };
    }
    position.advance(char);
  }
  return undefined;
}

/** The tokenizer's words, shortened for people: `expected ':'`. */
export function syntaxDetail(message: string): string {
  return message.replace(/^Parser (cannot parse input: |has )/, '');
}
