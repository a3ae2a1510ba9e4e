// Numbers from people: the bounds of every numeric setting and flag, and the one way a number is read
// from a flag's text (plain decimal only) and judged, so each message names what was found and the
// expected range.
import { CatalogIoError } from '../errors.js';

/** The numeric settings, their bounds and what they count: one table for flags and the config file. */
export const NUMBER_SETTINGS = {
  concurrency: { min: 1, max: 64, whole: true, unit: 'requests in flight at once' },
  timeoutMs: { min: 100, max: 3_600_000, whole: false, unit: 'ms for one try of a request', duration: true },
  retryBudgetMs: {
    min: 1_000,
    max: 86_400_000,
    whole: false,
    unit: 'ms for all tries of a request',
    duration: true,
  },
  maxAttempts: { min: 1, max: 20, whole: true, unit: 'tries of a request, the first included' },
  outageBudgetMs: {
    min: 1_000,
    max: 86_400_000,
    whole: false,
    unit: 'ms a service may stay unreachable while the run waits',
    duration: true,
  },
} as const;
export type NumberSetting = keyof typeof NUMBER_SETTINGS;

/** What is wrong with a numeric setting's value, said with the expected format; undefined when fine. */
export function numberProblem(key: NumberSetting, value: unknown): string | undefined {
  return ruleProblem(NUMBER_SETTINGS[key], value);
}

/** The bounds of a numeric flag or setting, and what it counts (for the message). */
export interface NumberRule {
  min: number;
  max: number;
  whole: boolean;
  unit: string;
  /** A time in ms: a flag may also say it with a unit (`500ms`, `30s`, `10m`, `2h`). */
  duration?: boolean;
}

/** Milliseconds per unit of a duration flag. */
const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, min: 60_000, h: 3_600_000 };

/** What is wrong with a number against its rule, with the expected format; undefined when fine. */
export function ruleProblem(rule: NumberRule, value: unknown): string | undefined {
  const { min, max, whole, unit } = rule;
  const expected = `${whole ? 'a whole number' : 'a number'} from ${min} to ${max} (${unit})`;
  if (typeof value !== 'number' || Number.isNaN(value)) return `must be ${expected}, found ${show(value)}`;
  if (whole && !Number.isInteger(value)) return `must be ${expected}, found ${value}`;
  if (value < min || value > max || !Number.isFinite(value)) return `must be ${expected}, found ${value}`;
  return undefined;
}

/** A numeric flag's text as a number, or the coded error saying what the format is. */
export function parseNumberText(rule: NumberRule, flag: string, raw: unknown): number {
  if (Array.isArray(raw))
    throw new CatalogIoError('CONFIG_INVALID', `${flag} is given ${raw.length} times: give it once`);
  const text = String(raw).trim();
  // Number('') is 0 and Number('0x10') is 16: only plain decimal notation is a number here.
  const timed = rule.duration ? durationMs(text) : undefined;
  const value = timed ?? (/^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i.test(text) ? Number(text) : Number.NaN);
  const problem = ruleProblem(rule, Number.isNaN(value) ? text : value);
  if (problem) {
    const hint = rule.duration ? '; a duration such as 30s, 10m or 2h is read too' : '';
    throw new CatalogIoError('CONFIG_INVALID', `${flag} ${problem}${hint}`);
  }
  return value;
}

/** The longest time a seconds flag takes: a week. */
const MAX_SECONDS = 7 * 86_400;

/**
 * A flag counted in seconds (`--drain-timeout 600`), which may also carry a unit (`90s`, `10m`, `1h`):
 * the number of seconds, or the coded error saying what is read.
 */
export function parseSecondsFlag(flag: string, raw: unknown, min: number): number {
  const text = Array.isArray(raw) ? raw.join(' ') : String(raw).trim();
  const timed = durationMs(text);
  const seconds =
    timed !== undefined ? timed / 1000 : /^(\d+(\.\d*)?|\.\d+)$/.test(text) ? Number(text) : Number.NaN;
  if (seconds >= min && seconds <= MAX_SECONDS) return seconds;
  throw new CatalogIoError(
    'CONFIG_INVALID',
    `${flag} must be a number of seconds from ${min} to ${MAX_SECONDS} (or 90s, 10m, 1h), found ${show(text)}`,
  );
}

/** A time with its unit (`750ms`, `30s`, `10m`, `15min`, `1.5h`) in ms; undefined for anything else. */
function durationMs(text: string): number | undefined {
  const timed = /^(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|min|m|h)$/i.exec(text);
  return timed ? Number(timed[1]) * DURATION_UNITS[timed[2]!.toLowerCase()]! : undefined;
}

/** A connection setting's flag text as a number (see NUMBER_SETTINGS). */
export function parseNumberFlag(key: NumberSetting, flag: string, raw: unknown): number {
  return parseNumberText(NUMBER_SETTINGS[key], flag, raw);
}

/** A value as it is quoted in a message: text in quotes, anything else as written. */
export function show(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
