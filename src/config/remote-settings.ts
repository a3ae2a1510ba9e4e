// Credentials of feed servers and mail (SFTP, FTP/FTPS, SMTP) may also come from the config file,
// so that each tenant file of a worker carries its own: `"sftp": { "key", "passphrase", "password",
// "hostKey", "knownHosts" }`, `"ftp": { "password", "ca" }`, `"smtpUrl"`. They become the environment
// variables the sources and notifications read, for the length of one command; a variable already
// set wins over the file (flags > environment > file), and `--known-hosts` over both. A job never
// carries any of this: `--config` and `--known-hosts` are refused in a job (jobs/feed-job.ts).
import path from 'node:path';
import { CatalogIoError } from '../errors.js';
import { registerSecret } from '../secrets.js';
import { readConfigJson } from './config.js';

/** The settings whose values are secrets. */
const SECRET_SETTINGS = ['password', 'passphrase'];

/** Each file setting, the variable it stands for, and whether it names a file (read relative to the config file). */
const FILE_SETTINGS: Record<string, Record<string, [variable: string, isPath: boolean]>> = {
  sftp: {
    key: ['CATALOG_IO_SFTP_KEY', true],
    passphrase: ['CATALOG_IO_SFTP_PASSPHRASE', false],
    password: ['CATALOG_IO_SFTP_PASSWORD', false],
    hostKey: ['CATALOG_IO_SFTP_HOST_KEY', false],
    knownHosts: ['CATALOG_IO_SFTP_KNOWN_HOSTS', true],
  },
  ftp: {
    password: ['CATALOG_IO_FTP_PASSWORD', false],
    ca: ['CATALOG_IO_FTPS_CA', true],
  },
};

/** The config file's credentials as environment variables (none when there is no file). */
export function credentialsFromFile(config: string | undefined, cwd: string): Record<string, string> {
  const read = readConfigJson(config, cwd);
  if (read.file === undefined) return {};
  const { file, json } = read;
  const out: Record<string, string> = {};
  const text = (where: string, value: unknown): string => {
    if (typeof value !== 'string' || value.trim() === '')
      throw new CatalogIoError('CONFIG_INVALID', `${where} in ${file} must be a non-empty string`);
    return value.trim();
  };
  for (const [section, settings] of Object.entries(FILE_SETTINGS)) {
    const given = json[section];
    if (given === undefined) continue;
    if (!given || typeof given !== 'object' || Array.isArray(given))
      throw new CatalogIoError('CONFIG_INVALID', `${section} in ${file} must be an object`);
    for (const [key, value] of Object.entries(given as Record<string, unknown>)) {
      const setting = settings[key];
      if (!setting) {
        throw new CatalogIoError(
          'CONFIG_INVALID',
          `Unknown setting ${section}.${key} in ${file}; known: ${Object.keys(settings).join(', ')}`,
        );
      }
      const [variable, isPath] = setting;
      const v = text(`${section}.${key}`, value);
      // Passwords and passphrases are masked in whatever is printed or stored from now on.
      if (SECRET_SETTINGS.includes(key)) registerSecret(v);
      out[variable] = isPath ? path.resolve(path.dirname(file), v) : v;
    }
  }
  if (json.smtpUrl !== undefined) {
    out.CATALOG_IO_SMTP_URL = text('smtpUrl', json.smtpUrl);
    const password = URL.canParse(out.CATALOG_IO_SMTP_URL)
      ? decodeURIComponent(new URL(out.CATALOG_IO_SMTP_URL).password)
      : '';
    if (password) registerSecret(password);
  }
  return out;
}

/**
 * Puts the file's credentials (and `--known-hosts`) in the environment of this command, where no
 * variable says otherwise; returns what puts the environment back as it was.
 */
export function applyCredentials(
  args: { config?: unknown; 'known-hosts'?: unknown },
  cwd: string = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
): () => void {
  const wanted: Record<string, string> = {};
  for (const [name, value] of Object.entries(
    credentialsFromFile(typeof args.config === 'string' ? args.config : undefined, cwd),
  )) {
    if (!env[name]?.trim()) wanted[name] = value;
  }
  if (typeof args['known-hosts'] === 'string' && args['known-hosts'].trim())
    wanted.CATALOG_IO_SFTP_KNOWN_HOSTS = path.resolve(cwd, args['known-hosts'].trim());
  const before = Object.fromEntries(Object.keys(wanted).map((name) => [name, env[name]]));
  Object.assign(env, wanted);
  return () => {
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) delete env[name];
      else env[name] = value;
    }
  };
}
