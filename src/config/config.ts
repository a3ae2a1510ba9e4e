// Connection settings, checked once at the edge. Precedence: flags > environment > config file.
//   flags        --catalog-url --dam-url --api-key --config --concurrency --rate-limit --timeout
//                --retry-budget --schemas --redis
//   environment  CATALOG_URL, DAM_URL, CATALOG_API_KEY, CATALOG_IO_REDIS
//   config file  catalog-io.config.json in the working directory or the nearest folder above it (up to
//                the home folder, else the filesystem root), or the file given with --config
// With no catalog URL anywhere, commands run against the embedded sandbox (see connect.ts).

import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { RateLimit } from '../api/limiter.js';
import { CatalogIoError } from '../errors.js';
import { faultProblem } from '../files.js';
import { jsonFaultAt } from '../json-position.js';
import { checkRedisUrl } from '../redis/url.js';
import { registerSecret, registerSecretsIn } from '../secrets.js';
import { NUMBER_SETTINGS, type NumberSetting, numberProblem, show } from './numbers.js';

export const CONFIG_FILE_NAME = 'catalog-io.config.json';

/** What a person can set, from any source. */
export interface ConnectionSettings {
  catalogUrl?: string;
  damUrl?: string;
  apiKey?: string;
  /** Requests in flight at once (and connections per origin). */
  concurrency?: number;
  /** Requests per window, or null for no client-side limit. */
  rateLimit?: RateLimit | null;
  /** One try of a request, whole (headers and complete body), ms. */
  timeoutMs?: number;
  /** One request, all its tries and the waits between them, ms. */
  retryBudgetMs?: number;
  /** Attempts per request, retries included. */
  maxAttempts?: number;
  /** How long a service may stay unreachable while the run waits for it, ms. */
  outageBudgetMs?: number;
  /** A schema cache folder to read instead of the live `$metadata`. */
  schemasDir?: string;
  /** Redis URL: the rate limit and run lock shared by every process of the tenant (docs/scale.md). */
  redisUrl?: string;
  /** Folder of this machine's run locks (without Redis); default the user's state folder (lock/dir.ts). */
  lockDir?: string;
}

/** CLI flags as yargs gives them (kebab-case keys are also camel-cased by yargs). */
export interface ConnectionFlags {
  catalogUrl?: string;
  damUrl?: string;
  apiKey?: string;
  config?: string;
  /** Read no config file, not even ./catalog-io.config.json (each side of a copy names its own). */
  noConfigFile?: boolean;
  concurrency?: number;
  rateLimit?: string;
  timeout?: number;
  retryBudget?: number;
  outageBudget?: number;
  schemas?: string;
  redis?: string;
  lockDir?: string;
}

/** Where a setting came from: a CLI flag, the environment, the config file, or a library caller's `settings`. */
export type SettingSource = 'flag' | 'env' | 'file' | 'settings';

export interface ResolvedSettings extends ConnectionSettings {
  /** Where each setting came from, for messages (never the values of secrets). */
  sources: Partial<Record<keyof ConnectionSettings, SettingSource>>;
  /** The config file read, if any. */
  configFile?: string;
  /** Where a config file was looked for when none was given nor found (for the embedded sandbox's line). */
  configSearch?: ConfigSearch;
}

/** The folders searched for `catalog-io.config.json`: from the working folder up to `to`. */
export interface ConfigSearch {
  from: string;
  to: string;
}

export interface ResolveOptions {
  flags?: ConnectionFlags;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Where the config file's lookup stops going up (default the user's home folder). */
  home?: string;
  /** How the command's messages name the settings (default: the usual flags and environment). */
  names?: SettingNames;
}

/**
 * How a command names the connection settings in its messages. `copy` has two tenants, each with flags
 * of its own (`--from-rate-limit`) and no environment: its errors must name those, not `--rate-limit`.
 */
export interface SettingNames {
  /** Put before a connection flag's name: `from-` makes `--from-rate-limit`. */
  flagPrefix: string;
  /** The environment is read (CATALOG_API_KEY is a place to give the key). */
  readsEnvironment: boolean;
  /** The config file as the command's messages call it. */
  configFile: string;
}

const USUAL_NAMES: SettingNames = { flagPrefix: '', readsEnvironment: true, configFile: CONFIG_FILE_NAME };

/** A connection flag as `names` spell it. */
function settingFlag(name: string, names: SettingNames = USUAL_NAMES): string {
  return `--${names.flagPrefix}${name}`;
}

/** Where the API key may be given, in words (`CATALOG_API_KEY (or --api-key)`). */
function keyPlaces(names: SettingNames): string {
  const flag = settingFlag('api-key', names);
  return names.readsEnvironment ? `CATALOG_API_KEY (or ${flag})` : flag;
}

/** A setting given nowhere: where it may be given, in words (`set DAM_URL (or --dam-url, or damUrl in …)`). */
export function settingPlaces(setting: 'apiKey' | 'damUrl', names: SettingNames = USUAL_NAMES): string {
  const [flag, env] = setting === 'apiKey' ? ['api-key', 'CATALOG_API_KEY'] : ['dam-url', 'DAM_URL'];
  return names.readsEnvironment
    ? `set ${env} (or ${settingFlag(flag, names)}, or ${setting} in ${names.configFile})`
    : `give ${settingFlag(flag, names)}, or ${setting} in ${names.configFile}`;
}

export function resolveSettings(options: ResolveOptions = {}): ResolvedSettings {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const flags = options.flags ?? {};
  const names = options.names ?? USUAL_NAMES;

  const fileSettings = flags.noConfigFile
    ? { settings: {} }
    : readConfigFile(flags.config, cwd, options.home ?? homedir());
  const envSettings: ConnectionSettings = dropUndefined({
    catalogUrl: nonEmpty(env.CATALOG_URL),
    damUrl: nonEmpty(env.DAM_URL),
    apiKey: nonEmpty(env.CATALOG_API_KEY),
    redisUrl: nonEmpty(env.CATALOG_IO_REDIS),
    lockDir: nonEmpty(env.CATALOG_IO_LOCK_DIR),
  });
  const flagSettings: ConnectionSettings = dropUndefined({
    catalogUrl: nonEmpty(flags.catalogUrl),
    damUrl: nonEmpty(flags.damUrl),
    apiKey: nonEmpty(flags.apiKey),
    concurrency: flags.concurrency,
    rateLimit:
      flags.rateLimit === undefined
        ? undefined
        : parseRateLimit(flags.rateLimit, settingFlag('rate-limit', names)),
    timeoutMs: flags.timeout,
    retryBudgetMs: flags.retryBudget,
    outageBudgetMs: flags.outageBudget,
    schemasDir: nonEmpty(flags.schemas),
    redisUrl: nonEmpty(flags.redis),
    lockDir: nonEmpty(flags.lockDir),
  });

  const resolved: ResolvedSettings = { sources: {} };
  const layers: Array<[ConnectionSettings, 'file' | 'env' | 'flag']> = [
    [fileSettings.settings, 'file'],
    [envSettings, 'env'],
    [flagSettings, 'flag'],
  ];
  for (const [layer, source] of layers) {
    for (const [key, value] of Object.entries(layer) as Array<[keyof ConnectionSettings, unknown]>) {
      if (value === undefined) continue;
      (resolved as unknown as Record<string, unknown>)[key] = value;
      resolved.sources[key] = source;
    }
  }
  if (fileSettings.file) resolved.configFile = fileSettings.file;
  if (fileSettings.search) resolved.configSearch = fileSettings.search;
  if (resolved.schemasDir && fileSettings.file && resolved.sources.schemasDir === 'file') {
    resolved.schemasDir = path.resolve(path.dirname(fileSettings.file), resolved.schemasDir);
  }
  if (resolved.lockDir && fileSettings.file && resolved.sources.lockDir === 'file') {
    resolved.lockDir = path.resolve(path.dirname(fileSettings.file), resolved.lockDir);
  }
  // The key is masked in everything printed or stored from now on (also if it turns up in a URL).
  if (resolved.apiKey) registerSecret(resolved.apiKey);
  check(resolved, names);
  return resolved;
}

/**
 * The settings a library caller gives `connect({ settings })`, over the resolved ones, checked as flags,
 * environment and config file are (messages name them `settings.catalogUrl`, …).
 */
export function withCallerSettings(
  resolved: ResolvedSettings,
  settings: ConnectionSettings,
  names: SettingNames = USUAL_NAMES,
): ResolvedSettings {
  const merged: ResolvedSettings = { ...resolved, ...settings, sources: { ...resolved.sources } };
  for (const [key, value] of Object.entries(settings) as Array<[keyof ConnectionSettings, unknown]>) {
    if (value !== undefined) merged.sources[key] = 'settings';
    else delete merged.sources[key];
  }
  // The key is masked before any message could carry it.
  if (typeof merged.apiKey === 'string' && merged.apiKey !== '') registerSecret(merged.apiKey);
  else if (merged.apiKey !== undefined) throw invalid(`settings.apiKey must be a non-empty string`);
  if (merged.rateLimit !== undefined && merged.sources.rateLimit === 'settings')
    checkRateLimit(merged.rateLimit, 'settings.rateLimit');
  for (const key of ['schemasDir', 'redisUrl', 'lockDir'] as const) {
    const value = merged[key];
    if (merged.sources[key] === 'settings' && (typeof value !== 'string' || value.trim() === ''))
      throw invalid(`settings.${key} must be a non-empty string, found ${kindOf(value)}`);
  }
  check(merged, names);
  return merged;
}

/** A rate limit given as an object (a library caller's): `{ requests, windowSeconds }` or null. */
function checkRateLimit(value: unknown, where: string): void {
  if (value === null) return;
  const r = value as Record<string, unknown>;
  if (!r || typeof r !== 'object' || typeof r.requests !== 'number' || typeof r.windowSeconds !== 'number')
    throw invalid(
      `${where} must be { requests: N, windowSeconds: S } or null (no limit), found ${kindOf(value)}`,
    );
  if (parseRateLimit(`${r.requests}/${r.windowSeconds}`, where) === null)
    throw invalid(`${where} turns the limit off with null, not with 0 requests`);
}

function check(s: ResolvedSettings, names: SettingNames): void {
  for (const key of ['catalogUrl', 'damUrl'] as const) {
    const value = s[key] as unknown;
    if (value === undefined) continue;
    if (typeof value !== 'string')
      throw invalid(`${label(key, s, names)} must be a string (https://host/path), found ${kindOf(value)}`);
    if (value.trim() === '')
      throw invalid(
        `${label(key, s, names)} is empty: give the service's base URL (https://host/path)${key === 'catalogUrl' ? ', or leave it out for the embedded sandbox' : ''}`,
      );
    // A key pasted into the URL (or the URL field) is never echoed back.
    if (s.apiKey && value.includes(s.apiKey))
      throw invalid(
        `${label(key, s, names)} holds the API key: give the service's base URL there, and the key with ${keyPlaces(names)}`,
      );
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw invalid(
        `${label(key, s, names)} is not a URL (${value.length} characters, not shown: it may be a key pasted in the wrong place); expected https://host/path`,
      );
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw invalid(`${label(key, s, names)} must be http or https, found ${url.protocol}`);
    if (url.username || url.password)
      throw invalid(
        `${label(key, s, names)} must not carry credentials: give the key with ${keyPlaces(names)}`,
      );
    if (url.search || url.hash)
      throw invalid(
        `${label(key, s, names)} must not have a query or fragment: ${url.origin}${url.pathname}`,
      );
  }
  if (s.redisUrl !== undefined) checkRedisUrl(s.redisUrl, label('redisUrl', s, names));
  for (const key of Object.keys(NUMBER_SETTINGS) as NumberSetting[]) {
    const value = s[key];
    if (value === undefined) continue;
    const problem = numberProblem(key, value);
    if (problem) throw invalid(`${label(key, s, names)} ${problem}`);
  }
  if (s.catalogUrl !== undefined && s.apiKey === undefined) {
    const places =
      s.sources.catalogUrl === 'settings' ? 'give settings.apiKey' : settingPlaces('apiKey', names);
    throw new CatalogIoError('CONFIG_MISSING', `No API key for ${s.catalogUrl}: ${places}`);
  }
}

const RATE_LIMIT_FORMAT = 'REQUESTS/SECONDS (e.g. 50/10: at most 50 requests in any 10 s) or off';
const RATE_LIMIT_MAX = { requests: 100_000, windowSeconds: 86_400 };

/** `50/10` (requests per seconds), `50` (per 10 s) or `off`. */
export function parseRateLimit(text: string, where: string): RateLimit | null {
  const t = text.trim().toLowerCase();
  if (t === 'off' || t === 'none') return null;
  // `0` reads as "no requests", not "no limit": against a service of 50 per 10 s that is a trap.
  if (t === '0')
    throw invalid(`${where} 0 would allow no request; to send without a client-side limit, use off`);
  const m = /^([+-]?[\d.]+)(?:\s*\/\s*([+-]?[\d.]+)\s*s?)?$/.exec(t);
  if (!m) throw invalid(`${where} reads ${RATE_LIMIT_FORMAT}, found ${show(text)}`);
  const requests = Number(m[1]);
  const windowSeconds = m[2] === undefined ? 10 : Number(m[2]);
  if (!Number.isInteger(requests) || requests < 1 || requests > RATE_LIMIT_MAX.requests)
    throw invalid(
      `${where} reads ${RATE_LIMIT_FORMAT}; the requests must be a whole number from 1 to ${RATE_LIMIT_MAX.requests}, found ${show(text)}`,
    );
  if (!Number.isFinite(windowSeconds) || windowSeconds <= 0 || windowSeconds > RATE_LIMIT_MAX.windowSeconds)
    throw invalid(
      `${where} reads ${RATE_LIMIT_FORMAT}; the seconds must be above 0 and at most ${RATE_LIMIT_MAX.windowSeconds}, found ${show(text)}`,
    );
  return { requests, windowSeconds };
}

interface FileSettings {
  settings: ConnectionSettings;
  file?: string;
  search?: ConfigSearch;
}

/**
 * `catalog-io.config.json` in `cwd` or the nearest folder above it, as git finds its repository: up to
 * the home folder when `cwd` is inside it (a config above home belongs to no one project), else up to
 * the filesystem root. Undefined, with where it looked, when there is none.
 */
export function findConfigFile(
  cwd: string,
  home: string = homedir(),
): { file: string } | { file: undefined; search: ConfigSearch } {
  const from = path.resolve(cwd);
  const top = path.resolve(home);
  const insideHome = from === top || from.startsWith(top.endsWith(path.sep) ? top : top + path.sep);
  for (let dir = from; ; ) {
    const file = path.join(dir, CONFIG_FILE_NAME);
    if (existsSync(file)) return { file };
    const up = path.dirname(dir);
    if (up === dir || (insideHome && dir === top)) return { file: undefined, search: { from, to: dir } };
    dir = up;
  }
}

/**
 * The config file as JSON (`--config`, else the nearest `catalog-io.config.json`: `findConfigFile`),
 * checked as an object; where it was looked for when there is none.
 */
export function readConfigJson(
  explicit: string | undefined,
  cwd: string,
  home: string = homedir(),
): { file: string; json: Record<string, unknown> } | { file: undefined; search: ConfigSearch } {
  let file: string;
  if (explicit) {
    file = path.resolve(cwd, explicit);
    if (!existsSync(file))
      throw new CatalogIoError('CONFIG_MISSING', `The config file ${file} does not exist`);
  } else {
    const found = findConfigFile(cwd, home);
    if (found.file === undefined) return found;
    file = found.file;
  }
  let json: unknown;
  let text: string;
  try {
    // A file saved with a BOM (Windows Notepad) is the same JSON.
    text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  } catch (err) {
    throw new CatalogIoError(
      'CONFIG_INVALID',
      `Cannot read the config file ${file}: ${faultProblem(Object.assign(err as object, { path: file }))}`,
    );
  }
  try {
    json = JSON.parse(text);
  } catch (err) {
    // The parser's message may quote the text around the fault, the key with it: only where it is.
    const at = jsonFaultAt(text, err);
    const where = at ? ` at ${at}` : '';
    throw new CatalogIoError('CONFIG_INVALID', `The config file ${file} is not valid JSON${where}`);
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) {
    throw new CatalogIoError('CONFIG_INVALID', `The config file ${file} must hold a JSON object`);
  }
  return { file, json: json as Record<string, unknown> };
}

function readConfigFile(explicit: string | undefined, cwd: string, home: string): FileSettings {
  const read = readConfigJson(explicit, cwd, home);
  if (read.file === undefined) return { settings: {}, search: read.search };
  const { file, json: o } = read;
  // Secrets are masked in whatever shape they came, before anything could print them.
  registerSecretsIn(o.apiKey);
  const known = new Set([
    '$schema',
    'catalogUrl',
    'damUrl',
    'apiKey',
    'concurrency',
    'rateLimit',
    'timeoutMs',
    'retryBudgetMs',
    'maxAttempts',
    'outageBudgetMs',
    'schemas',
    'redis',
    'lockDir',
    'sftp',
    'ftp',
    'smtpUrl',
  ]);
  const unknown = Object.keys(o).filter((k) => !known.has(k));
  if (unknown.length > 0) {
    throw new CatalogIoError(
      'CONFIG_INVALID',
      `Unknown setting ${unknown.map((k) => JSON.stringify(k)).join(', ')} in ${file}; known: ${[...known].filter((k) => k !== '$schema').join(', ')}`,
    );
  }
  const where = (key: string) => `${key} in ${file}`;
  const string = (key: string): string | undefined => {
    const v = o[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'string') {
      // A secret's value is never quoted, whatever its shape.
      const found = SECRET_SETTINGS.has(key) ? kindOf(v) : JSON.stringify(v);
      throw invalid(`${where(key)} must be a string, found ${found}`);
    }
    return nonEmpty(v);
  };
  const number = (key: string): number | undefined => {
    const v = o[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'number') throw invalid(`${where(key)} must be a number, found ${JSON.stringify(v)}`);
    return v;
  };
  const fileRateLimit = (r: Record<string, unknown>): RateLimit => {
    if (typeof r.requests !== 'number' || typeof r.windowSeconds !== 'number')
      throw invalid(`${where('rateLimit')} must be { "requests": N, "windowSeconds": S }, "N/S" or null`);
    // One check for both spellings: the object is read as the text it stands for.
    const limit = parseRateLimit(`${r.requests}/${r.windowSeconds}`, where('rateLimit'));
    if (!limit) throw invalid(`${where('rateLimit')} turns the limit off with null, not with 0 requests`);
    return limit;
  };
  let rateLimit: RateLimit | null | undefined;
  const rl = o.rateLimit;
  if (rl === null || rl === 'off') rateLimit = null;
  else if (typeof rl === 'string') rateLimit = parseRateLimit(rl, where('rateLimit'));
  else if (rl && typeof rl === 'object' && !Array.isArray(rl))
    rateLimit = fileRateLimit(rl as Record<string, unknown>);
  else if (rl !== undefined)
    throw invalid(`${where('rateLimit')} must be { "requests": N, "windowSeconds": S }, "N/S" or null`);
  return {
    file,
    settings: dropUndefined({
      catalogUrl: string('catalogUrl'),
      damUrl: string('damUrl'),
      apiKey: string('apiKey'),
      concurrency: number('concurrency'),
      rateLimit,
      timeoutMs: number('timeoutMs'),
      retryBudgetMs: number('retryBudgetMs'),
      maxAttempts: number('maxAttempts'),
      outageBudgetMs: number('outageBudgetMs'),
      schemasDir: string('schemas'),
      redisUrl: string('redis'),
      lockDir: string('lockDir'),
    }),
  };
}

function label(key: keyof ConnectionSettings, s: ResolvedSettings, names: SettingNames): string {
  const labels: Record<string, [string, string, string]> = {
    catalogUrl: [settingFlag('catalog-url', names), 'CATALOG_URL', 'catalogUrl'],
    damUrl: [settingFlag('dam-url', names), 'DAM_URL', 'damUrl'],
    concurrency: [settingFlag('concurrency', names), 'concurrency', 'concurrency'],
    timeoutMs: [settingFlag('timeout', names), 'timeoutMs', 'timeoutMs'],
    retryBudgetMs: [settingFlag('retry-budget', names), 'retryBudgetMs', 'retryBudgetMs'],
    maxAttempts: ['maxAttempts', 'maxAttempts', 'maxAttempts'],
    outageBudgetMs: [settingFlag('outage-budget', names), 'outageBudgetMs', 'outageBudgetMs'],
    redisUrl: [settingFlag('redis', names), 'CATALOG_IO_REDIS', 'redis'],
  };
  const [flag, env, file] = labels[key] ?? [key, key, key];
  const source = s.sources[key];
  if (source === 'settings') return `settings.${key}`;
  return source === 'flag' ? flag : source === 'env' ? env : `${file} in ${s.configFile ?? CONFIG_FILE_NAME}`;
}

/** Settings of the config file whose values are secrets (a Redis URL may hold a password). */
const SECRET_SETTINGS: ReadonlySet<string> = new Set(['apiKey', 'redis']);

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function invalid(message: string): CatalogIoError {
  return new CatalogIoError('CONFIG_INVALID', message);
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
