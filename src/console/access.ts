// Who may use the console. On loopback (the default) only this machine can reach it, and the Host header
// must name loopback too (a web page cannot reach it through a DNS name that points here). Bound
// elsewhere it needs a token, given once as `?token=` (kept in an HttpOnly cookie) or as a bearer
// header; without one it refuses to start. A write (POST) must come from the console's own pages.
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CatalogIoError } from '../errors.js';

export const TOKEN_COOKIE = 'catalog_io_console';
export const TOKEN_ENV = 'CATALOG_IO_CONSOLE_TOKEN';
const MIN_TOKEN_CHARS = 16;

export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

/** Refuses a bind beyond this machine without a token, and a token too short to be one. */
export function checkAccess(host: string, token: string | undefined): void {
  if (token !== undefined && token.length < MIN_TOKEN_CHARS) {
    throw new CatalogIoError(
      'CONFIG_INVALID',
      `The console token must have at least ${MIN_TOKEN_CHARS} characters; got ${token.length} (e.g. openssl rand -hex 24)`,
    );
  }
  if (!isLoopback(host) && token === undefined) {
    throw new CatalogIoError(
      'CONFIG_INVALID',
      `serve --host ${host}: a console reachable from other machines needs a token: give --token or set ${TOKEN_ENV} (at least ${MIN_TOKEN_CHARS} characters), or bind to 127.0.0.1`,
    );
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function cookieToken(header: string | undefined): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === TOKEN_COOKIE) {
      // A cookie that is not valid percent-encoding carries no token: the request is asked for one.
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** The hooks that guard every route, bull-board's included (added before anything is registered). */
export function guard(
  app: FastifyInstance,
  host: string,
  token: string | undefined,
  origins: readonly string[] = [],
): void {
  const allowed = new Set(origins.map((o) => checkOrigin(o)));
  const expected = token === undefined ? undefined : digest(token);
  const sameToken = (given: string | undefined) =>
    given !== undefined && expected !== undefined && timingSafeEqual(digest(given), expected);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const hostName = hostOf(request.headers.host);
    if (isLoopback(host) && (hostName === undefined || !isLoopback(hostName)))
      return reply.code(421).type('text/plain').send('This console answers to loopback names only.\n');
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      // The whole origin (scheme, host and port), as a browser sends it: the console's own is
      // `http://` and the Host the request names; another is one `--origin` allows (a TLS proxy's).
      const origin = request.headers.origin;
      if (origin !== undefined && !sameOrigin(origin, request.headers.host, allowed))
        return reply
          .code(403)
          .type('text/plain')
          .send(
            `Cross-origin writes are refused (origin ${origin.slice(0, 200)}; serve --origin allows another, such as a TLS proxy's).\n`,
          );
    }
    if (expected === undefined) return;
    const url = new URL(request.url, 'http://console');
    const query = url.searchParams.get('token') ?? undefined;
    if (query !== undefined && sameToken(query) && request.method === 'GET') {
      // Kept in a cookie, and taken out of the address bar (and of the history).
      url.searchParams.delete('token');
      return reply
        .header(
          'set-cookie',
          `${TOKEN_COOKIE}=${encodeURIComponent(query)}; HttpOnly; SameSite=Strict; Path=/`,
        )
        .redirect(`${url.pathname}${url.search}`, 303);
    }
    const bearer = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
    if (sameToken(bearer) || sameToken(cookieToken(request.headers.cookie))) return;
    return reply
      .code(401)
      .type('text/plain')
      .send('This console needs its token: open it once as /?token=<token> (the token serve was given).\n');
  });
}

/**
 * An origin `--origin` allows, as a browser sends it (`https://catalog.example.com`, `http://host:8080`):
 * a scheme, a host and a port, no path. Refused at the start with what is wrong.
 */
function checkOrigin(origin: string): string {
  let url: URL | undefined;
  try {
    url = new URL(origin);
  } catch {
    url = undefined;
  }
  const plain = url && url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
  if (!url || !plain || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new CatalogIoError(
      'CONFIG_INVALID',
      `serve --origin ${origin}: give an origin as a browser sends it: a scheme, a host and a port when not the default, no path (e.g. https://catalog.example.com)`,
    );
  return url.origin;
}

/** Whether `origin` is the console's own (`http://` and the Host header) or one allowed. */
function sameOrigin(origin: string, hostHeader: string | undefined, allowed: ReadonlySet<string>): boolean {
  if (allowed.has(origin)) return true;
  if (!hostHeader) return false;
  try {
    return new URL(`http://${hostHeader}`).origin === origin.toLowerCase();
  } catch {
    return false;
  }
}

/** The host name of a Host header or an origin without its scheme (`[::1]:4020` -> `::1`). */
function hostOf(hostHeader: string | undefined): string | undefined {
  if (!hostHeader) return undefined;
  const bracketed = /^\[([^\]]+)\]/.exec(hostHeader);
  if (bracketed) return bracketed[1]!.toLowerCase();
  return hostHeader.replace(/:\d+$/, '').replace(/\/.*$/, '').toLowerCase();
}
