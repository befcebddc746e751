/**
 * The layer and room tables of docs/architecture.md, enforced: every relative import of every
 * source file outside tests/ goes to its own folder or to one the tables allow, so that nothing
 * below the client imports `client/` and each client room keeps to its neighbours. A failure
 * names the file, the line and the two places. (What fsm/ and workflows/ may import from outside
 * the repository is determinism-boundary.test.ts's business.)
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const LAYERS = ['fsm', 'workflows', 'loader', 'activities', 'worker', 'client', 'ui'];

/** Where a file belongs: a layer, or `client/<room>`; files at the top of client/ are `client`. */
function placeOf(file: string): string {
  const parts = relative(ROOT, file).split(sep);
  if ((parts[0] === 'client' || parts[0] === 'ui') && parts.length > 2) return `${parts[0]}/${parts[1]}`;
  return parts[0]!;
}

/** What each place may import besides itself; `type:` entries allow type-only imports. */
const ALLOWED: Record<string, readonly string[]> = {
  fsm: [],
  workflows: ['fsm'],
  loader: ['fsm'],
  activities: ['fsm', 'loader', 'type:workflows'],
  worker: ['activities', 'loader', 'fsm', 'workflows'],
  client: ['client/commands', 'client/temporal', 'loader', 'fsm'],
  'client/commands': [
    'client',
    'client/runs',
    'client/temporal',
    'client/reporters',
    'client/show',
    'client/create',
    'client/service',
    'ui/server',
    'loader',
    'worker',
    'workflows',
    'fsm',
  ],
  'client/runs': ['client', 'client/temporal', 'client/reporters', 'loader', 'worker', 'workflows', 'fsm'],
  'client/temporal': ['client', 'loader'],
  'client/reporters': ['fsm', 'type:worker'],
  'client/show': ['client/reporters', 'fsm'],
  'client/create': ['client', 'loader', 'fsm'],
  'client/service': ['client', 'client/runs', 'worker'],
  'ui/server': [
    'client',
    'client/commands',
    'client/runs',
    'client/temporal',
    'client/show',
    'client/reporters',
    'worker',
    'workflows',
    'fsm',
  ],
  'ui/page': ['type:ui/server', 'client/reporters', 'type:fsm'],
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** `import … from './x.js'`, `export … from`, `import('./x.js')`: the relative ones, with their line. */
function relativeImports(text: string): Array<{ line: number; spec: string; typeOnly: boolean }> {
  const found: Array<{ line: number; spec: string; typeOnly: boolean }> = [];
  const statement =
    /(?:^|\n)\s*(import|export)(\s+type\b)?[^'";]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;
  for (const m of text.matchAll(statement)) {
    const spec = m[3] ?? m[4]!;
    const line = text.slice(0, m.index + m[0].length).split('\n').length;
    found.push({ line, spec, typeOnly: m[2] !== undefined });
  }
  return found;
}

function violations(): string[] {
  const out: string[] = [];
  for (const layer of LAYERS) {
    for (const file of sources(join(ROOT, layer))) {
      const from = placeOf(file);
      const allowed = ALLOWED[from];
      if (!allowed) {
        out.push(`${relative(ROOT, file)}: ${from} is in no table of docs/architecture.md`);
        continue;
      }
      for (const imp of relativeImports(readFileSync(file, 'utf8'))) {
        const to = placeOf(join(dirname(file), imp.spec));
        if (to === from || allowed.includes(to) || (imp.typeOnly && allowed.includes(`type:${to}`))) continue;
        out.push(
          `${relative(ROOT, file)}:${imp.line}: ${from} imports ${imp.typeOnly ? 'types from ' : ''}${to} (${imp.spec})`,
        );
      }
    }
  }
  return out;
}

describe('layer and room imports', () => {
  it('follow the tables of docs/architecture.md', () => {
    expect(violations()).toEqual([]);
  });

  it('see the imports they check', () => {
    const imports = relativeImports(readFileSync(join(ROOT, 'activities', 'load-subloop.ts'), 'utf8'));
    expect(imports.map((i) => i.spec)).toContain('../loader/load.js');
    expect(placeOf(join(ROOT, 'client', 'runs', 'start-run.ts'))).toBe('client/runs');
    expect(placeOf(join(ROOT, 'client', 'cli.ts'))).toBe('client');
  });
});
