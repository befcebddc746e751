/**
 * The page itself: an HTML shell and the bundle built from ui/page/ (tools/bundle-ui.mjs, into
 * dist/ui/page/): everything ships in the package, nothing comes from a CDN, the page works
 * offline. The shell names the bundle with the token in its URL (the guard asks for it everywhere).
 */
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../host/paths.js';
import { plain, SECURITY_HEADERS } from './guard.js';

/** Where the built page is. */
const PAGE_DIR = join(PACKAGE_ROOT, 'dist', 'ui', 'page');

const TYPES: Record<string, string> = {
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

/** `&`, `<`, `>`, `"` and `'` as entities: text safe anywhere in HTML, attributes included. */
function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

/** The HTML shell. */
export function pageHtml(token: string, title: string): string {
  const q = `?token=${encodeURIComponent(token)}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="/app.css${escapeHtml(q)}">
</head>
<body>
<div id="app" data-title="${escapeHtml(title)}"><p class="loading">loading…</p></div>
<script type="module" src="/app.js${escapeHtml(q)}"></script>
</body>
</html>
`;
}

export interface PageAssets {
  sendPage(res: ServerResponse, token: string): void;
  sendFile(res: ServerResponse, name: 'app.js' | 'app.css'): void;
}

/** The page's files, read from `dir` once (a missing build is a clear 500). */
export function pageAssets(title: string, dir = PAGE_DIR): PageAssets {
  const cache = new Map<string, Buffer>();
  return {
    sendPage(res, token) {
      res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'text/html; charset=utf-8' });
      res.end(pageHtml(token, title));
    },
    sendFile(res, name) {
      let body = cache.get(name);
      if (!body) {
        try {
          body = readFileSync(join(dir, name));
        } catch {
          plain(res, 500, `the page is not built (${join(dir, name)} is missing): run npm run build`);
          return;
        }
        cache.set(name, body);
      }
      res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': TYPES[name] ?? 'application/octet-stream' });
      res.end(body);
    },
  };
}
