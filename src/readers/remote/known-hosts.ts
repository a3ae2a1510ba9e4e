// Host keys checked as OpenSSH checks them: the server's key must be in a known_hosts file (plain,
// `[host]:port`, wildcard and hashed `|1|salt|hash` host names, `@revoked` keys) or be the one pinned
// by fingerprint. An unknown key is refused with its fingerprint, for a person to check and pin.
import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

export type HostKeyVerdict =
  | { known: true }
  | { known: false; reason: 'unknown' | 'changed' | 'revoked'; where?: string };

/** `SHA256:...` as `ssh-keygen -l` and `ssh` print a host key's fingerprint. */
export function fingerprint(key: Buffer): string {
  return `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
}

/** The key's algorithm, the first string of its wire form (`ssh-ed25519`, `ecdsa-sha2-nistp256`, ...). */
export function keyType(key: Buffer): string {
  if (key.length < 4) return 'unknown';
  const length = key.readUInt32BE(0);
  return key.subarray(4, 4 + length).toString('latin1');
}

/** The files read when none is given: the user's, then the machine's (as ssh does). */
export function defaultKnownHostsFiles(): string[] {
  return [path.join(homedir(), '.ssh', 'known_hosts'), '/etc/ssh/ssh_known_hosts'];
}

/** What the files say of `key` for `host` on `port`. Missing files say nothing. */
export function checkKnownHosts(files: string[], host: string, port: number, key: Buffer): HostKeyVerdict {
  const name = port === 22 ? host : `[${host}]:${port}`;
  const wanted = key.toString('base64');
  const type = keyType(key);
  let changed: string | undefined;
  let known = false;
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    const lines = text.split(/\r?\n/);
    for (let i = 0; i < lines.length; i++) {
      const fields = lines[i]!.trim().split(/\s+/);
      if (fields.length < 3 || fields[0]!.startsWith('#')) continue;
      const marker = fields[0]!.startsWith('@') ? fields.shift() : undefined;
      const [hosts, lineType, blob] = fields as [string, string, string | undefined];
      if (!blob) continue;
      if (marker === '@revoked') {
        if (blob === wanted) return { known: false, reason: 'revoked', where: `${file} line ${i + 1}` };
        continue;
      }
      // Certificate authorities sign host certificates, which these servers do not present.
      if (marker !== undefined || !hostsMatch(hosts, name)) continue;
      // Known here, unless a later line revokes it: every line is read.
      if (blob === wanted) known = true;
      else if (lineType === type) changed ??= `${file} line ${i + 1}`;
    }
  }
  if (known) return { known: true };
  return changed ? { known: false, reason: 'changed', where: changed } : { known: false, reason: 'unknown' };
}

/** A known_hosts host field (`a,b,!c`, `*.example.com`, `[h]:2222`, `|1|salt|hash`) against a name. */
function hostsMatch(field: string, name: string): boolean {
  let matched = false;
  for (const pattern of field.split(',')) {
    const negated = pattern.startsWith('!');
    const p = negated ? pattern.slice(1) : pattern;
    if (!patternMatches(p, name)) continue;
    if (negated) return false;
    matched = true;
  }
  return matched;
}

function patternMatches(pattern: string, name: string): boolean {
  if (pattern.startsWith('|1|')) {
    const [salt, hash] = pattern.slice(3).split('|');
    if (!salt || !hash) return false;
    const mac = createHmac('sha1', Buffer.from(salt, 'base64')).update(name).digest('base64');
    return mac === hash;
  }
  const regex = new RegExp(
    `^${pattern
      .toLowerCase()
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );
  return regex.test(name.toLowerCase());
}
