// Loading a mapping profile: JSON (or YAML, for a `.yaml`/`.yml` file) parse, then Ajv against the shipped `schemas/profile.schema.json`.
// A bad profile is ONE error (PROFILE_INVALID) that names the JSON path of the first real problem.
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject } from 'ajv';
import { CatalogIoError } from '../errors.js';
import { jsonFaultAt, jsonFaultWhat } from '../json-position.js';
import type { Profile } from './profile-types.js';

/** A file at the package root, if it is there (from `src/mappers/`, `dist/mappers/` or `dist/bin/`). */
function packageFile(relative: string): string | undefined {
  for (const up of ['../../', '../../../']) {
    const candidate = fileURLToPath(new URL(up + relative, import.meta.url));
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** Where the profile schema ships: `schemas/` at the package root. */
export function profileSchemaPath(): string {
  const path = packageFile('schemas/profile.schema.json');
  if (path) return path;
  throw new CatalogIoError(
    'INTERNAL',
    'The profile schema (schemas/profile.schema.json) is missing from the install',
  );
}

type ProfileValidator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

let compiled: ProfileValidator | undefined;
function profileValidator(): ProfileValidator {
  if (!compiled) {
    const text = readFileSync(profileSchemaPath(), 'utf8');
    // The shipped schema is checked against its meta-schema by the tests, not on every start (compiling
    // the meta-schema cost about a fifth of `validate`'s start-up).
    compiled =
      builtValidator(text) ??
      new Ajv({ allErrors: true, strict: false, validateSchema: false }).compile(JSON.parse(text));
  }
  return compiled;
}

/**
 * The validator the build compiled from this very schema text (`scripts/profile-validator.mjs`, into
 * `dist/profile-validator.cjs`): loading it costs a millisecond, compiling the schema about thirty. Run
 * from the sources, or after the schema changed, there is none and the schema is compiled here.
 */
function builtValidator(schemaText: string): ProfileValidator | undefined {
  const file = packageFile('dist/profile-validator.cjs');
  if (!file) return undefined;
  const built = createRequire(import.meta.url)(file) as ProfileValidator & { schemaText?: string };
  return built.schemaText === schemaText ? built : undefined;
}

/** `/columns/Price/type` -> `$.columns["Price"].type`. */
export function jsonPath(pointer: string): string {
  if (!pointer) return '$';
  const parts = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  return `$${parts.map((p) => (/^[A-Za-z_$][\w$]*$/.test(p) ? `.${p}` : /^\d+$/.test(p) ? `[${p}]` : `[${JSON.stringify(p)}]`)).join('')}`;
}

/** The most telling error: the deepest one, preferring concrete keywords over anyOf/oneOf summaries. */
function pickError(errors: ErrorObject[]): ErrorObject {
  const depth = (e: ErrorObject) =>
    e.instancePath.split('/').length + (e.keyword === 'additionalProperties' ? 1 : 0);
  const concrete = errors.filter((e) => !['anyOf', 'oneOf', 'allOf', 'if'].includes(e.keyword));
  const pool = concrete.length ? concrete : errors;
  return pool.reduce((best, e) => (depth(e) > depth(best) ? e : best), pool[0]!);
}

function describe(e: ErrorObject): string {
  switch (e.keyword) {
    case 'additionalProperties':
      return `unknown key "${String(e.params.additionalProperty)}"`;
    case 'required':
      return `"${String(e.params.missingProperty)}" is required`;
    case 'enum':
      return `must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'pattern':
      return e.instancePath === '/entity'
        ? 'must be products, variants, categories or custom:<denominator>'
        : `must match ${String(e.params.pattern)}`;
    case 'oneOf':
      return 'needs exactly one of "constant", "template" or "from"';
    default:
      return e.message ?? 'is not valid';
  }
}

/** Checks a parsed profile; `where` names the file in the message. */
export function parseProfile(data: unknown, where = 'profile'): Profile {
  const validate = profileValidator();
  if (!validate(data)) {
    const e = pickError(validate.errors ?? []);
    const path = e.keyword === 'additionalProperties' ? jsonPath(e.instancePath) : jsonPath(e.instancePath);
    throw new CatalogIoError('PROFILE_INVALID', `Profile is not valid: ${path} ${describe(e)}`, {
      location: where,
      path,
    });
  }
  const profile = data as Profile;
  checkTimezones(profile, where);
  return profile;
}

/** Time zones are checked here, once, with Intl (the schema cannot know the IANA list). */
function checkTimezones(profile: Profile, where: string): void {
  const zones: Array<[string, string | undefined]> = [['$.timezone', profile.timezone]];
  for (const [header, rule] of Object.entries(profile.columns ?? {})) {
    if (rule && typeof rule === 'object')
      zones.push([`${jsonPath(`/columns/${header}`)}.timezone`, rule.timezone]);
  }
  for (const [field, rule] of Object.entries(profile.fields ?? {})) {
    zones.push([`${jsonPath(`/fields/${field}`)}.timezone`, rule.timezone]);
  }
  for (const [path, zone] of zones) {
    if (zone === undefined) continue;
    try {
      new Intl.DateTimeFormat('en', { timeZone: zone });
    } catch {
      throw new CatalogIoError(
        'PROFILE_INVALID',
        `Profile is not valid: ${path} "${zone}" is not an IANA time zone`,
        {
          location: where,
          path,
        },
      );
    }
  }
}

/** A profile file is YAML when its name says so (`.yaml`, `.yml`), JSON otherwise. */
export function isYamlProfile(file: string): boolean {
  return /\.ya?ml$/i.test(file);
}

export async function loadProfile(file: string): Promise<Profile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    throw new CatalogIoError('PROFILE_INVALID', `Profile file cannot be read: ${file}`, { cause });
  }
  text = text.replace(/^\uFEFF/, '');
  const data = isYamlProfile(file) ? await parseYaml(text, file) : parseJson(text, file);
  return parseProfile(data, file);
}

function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    const at = jsonFaultAt(text, cause);
    throw new CatalogIoError(
      'PROFILE_INVALID',
      `Profile is not valid JSON${at ? ` at ${at}` : ''}: ${jsonFaultWhat(cause)}`,
      { location: file },
    );
  }
}

/** YAML 1.2 (the `yaml` library, loaded only for a YAML profile): a fault is named by its line and column. */
async function parseYaml(text: string, file: string): Promise<unknown> {
  const { parse, YAMLError } = await import('yaml');
  try {
    return parse(text);
  } catch (cause) {
    if (!(cause instanceof YAMLError)) throw cause;
    const at = cause.linePos?.[0];
    const where = at ? ` at line ${at.line}, column ${at.col}` : '';
    const what = cause.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    throw new CatalogIoError('PROFILE_INVALID', `Profile is not valid YAML${where}: ${what}`, {
      location: file,
    });
  }
}
