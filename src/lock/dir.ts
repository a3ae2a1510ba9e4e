// Where this machine keeps its run locks (without --redis): one folder per user, whatever the working
// folder, so the same feed started from two folders still meets the same lock. The XDG state folder
// on Linux and macOS, LOCALAPPDATA on Windows; `--lock-dir`, CATALOG_IO_LOCK_DIR or `lockDir` in the
// config file put it elsewhere (a folder shared by every user who imports to the same tenants).
import { homedir } from 'node:os';
import path from 'node:path';

export function defaultLockDir(env: NodeJS.ProcessEnv = process.env): string {
  const state = env.XDG_STATE_HOME?.trim();
  if (state && path.isAbsolute(state)) return path.join(state, 'catalog-io', 'locks');
  if (process.platform === 'win32' && env.LOCALAPPDATA)
    return path.join(env.LOCALAPPDATA, 'catalog-io', 'locks');
  return path.join(homedir(), '.local', 'state', 'catalog-io', 'locks');
}
