// $top / $skip: whole numbers within a range; anything else is a 400 that says the range.

import { propertyError } from './messages.js';

export function parseIntOption(
  name: '$top' | '$skip',
  text: string | null,
  range: { min: number; max?: number },
): number | undefined {
  if (text === null || text === undefined) return undefined;
  const expected =
    range.max === undefined
      ? `a whole number of ${range.min} or greater`
      : `a whole number from ${range.min} to ${range.max}`;
  const fail = () =>
    propertyError(name, text, name, `The value of ${name} must be ${expected}; found '${text}'.`);
  if (!/^[+-]?\d+$/.test(text)) throw fail();
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < range.min || (range.max !== undefined && value > range.max))
    throw fail();
  return value;
}
