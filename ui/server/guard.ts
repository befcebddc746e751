/**
 * Who may talk to the `ll-loop ui` server: a page that knows its token, on this machine.
 *
 * Invariants:
 * - every route needs the token: `?token=` in the URL (the page's address, its scripts and event
 *   streams), or the `X-LL-Token` header; compared in constant time; without it: 401;
 * - a state-changing request is a POST with the token in the `X-LL-Token` header only: a form of
 *   another site cannot set that header, and without CORS headers no script of another origin may
 *   send it (its preflight finds no `Access-Control-Allow-*` and stops);
 * - the `Host` header must name this server (127.0.0.1, localhost or [::1] with its port): a page
 *   of another site that rebinds its DNS name to 127.0.0.1 is refused (403);
 * - answers carry a strict Content-Security-Policy (the page's own script and style only), no
 *   referrer (the token is in the URL), nosniff and no caching.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The header a state-changing request carries its token in. */
const TOKEN_HEADER = 'x-ll-token';

/** A fresh token: 32 random bytes, URL-safe. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Whether `given` is `token` (constant time). */
function tokenMatches(token: string, given: string | undefined | null): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(token);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Whether the request's `Host` is this server on the loopback interface. */
function hostAllowed(host: string | undefined, port: number): boolean {
  if (host === undefined) return false;
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`].includes(host.toLowerCase());
}

/** The headers every answer carries (see the module's invariants). */
export const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
};

/** Why a request is refused, or undefined when it may go on. */
export function refusal(
  req: IncomingMessage,
  url: URL,
  token: string,
  port: number,
): { status: number; message: string } | undefined {
  if (!hostAllowed(req.headers.host, port)) return { status: 403, message: 'this server answers only to 127.0.0.1' };
  const header = req.headers[TOKEN_HEADER];
  const fromHeader = Array.isArray(header) ? header[0] : header;
  if (req.method === 'POST') {
    if (!tokenMatches(token, fromHeader)) return { status: 401, message: 'missing or wrong token' };
    return undefined;
  }
  if (!tokenMatches(token, url.searchParams.get('token')) && !tokenMatches(token, fromHeader))
    return { status: 401, message: 'missing or wrong token: open the URL ll-loop ui printed' };
  return undefined;
}

/** Writes a plain-text answer with the security headers. */
export function plain(res: ServerResponse, status: number, text: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': 'text/plain; charset=utf-8', ...extra });
  res.end(`${text}\n`);
}

/** Writes a JSON answer with the security headers. */
export function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(value));
}
