// stream-json's pure tokenizer behind a plain interface: text in, token arrays out. Its end-of-input
// and many-values markers are stream-chain's registered symbols.
import { jsonParser, type Token } from 'stream-json/core/parser.js';

const NONE = Symbol.for('object-stream.none');
const MANY = Symbol.for('object-stream.many');

export type { Token };

export interface Tokenizer {
  /** Tokens completed by this text; throws on a syntax error. */
  write(text: string): Token[];
  /** Tokens held back until the end; throws when the document is incomplete. */
  end(): Token[];
}

type Step = (input: unknown) => unknown;

export function createTokenizer(): Tokenizer {
  // Packed values only: one token per key, string and number.
  const step = jsonParser({ streamValues: false }) as unknown as Step;
  return {
    write: (text) => tokensOf(step(text)),
    end: () => tokensOf(step(NONE)),
  };
}

const EMPTY: Token[] = [];

function tokensOf(output: unknown): Token[] {
  if (output === NONE || output === undefined) return EMPTY;
  if (typeof output === 'object' && output !== null && MANY in output)
    return (output as unknown as { values: Token[] }).values;
  return [output as Token];
}
