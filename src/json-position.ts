// Where JSON.parse stopped, for people: `line 3, column 14` rather than V8's `position 36`.

/** `line L, column C` of the fault JSON.parse reported in `error`, or undefined when it named no position. */
export function jsonFaultAt(text: string, error: unknown): string | undefined {
  const at = /position (\d+)/.exec((error as Error).message);
  if (!at) return undefined;
  const position = Number(at[1]);
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  return `line ${line}, column ${position - before.lastIndexOf('\n')}`;
}

/** V8's message without where it stopped (`Expected ',' or '}' after property value`). */
export function jsonFaultWhat(error: unknown): string {
  return (error as Error).message.replace(/ in JSON at position \d+.*$/s, '');
}
