/**
 * The determinism boundary, enforced: workflow code and the pure core import no Node built-ins,
 * no execa, no activity implementations or client/worker packages, and read no ambient state
 * (process, real clock, randomness). Temporal's sandbox would catch some of this at run time;
 * this catches all of it at test time, with the file and line.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

interface Rule {
  name: string;
  pattern: RegExp;
}

const IMPORT = /^\s*(?:import|export)\s+(?!type\b)(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]/;

/** Modules neither layer may import at run time. */
function forbiddenModule(spec: string, layer: 'fsm' | 'workflows'): string | undefined {
  if (spec.startsWith('node:') || /^(fs|path|os|child_process|crypto|net|http|https|worker_threads|url|util|events|stream)(\/|$)/.test(spec)) return 'Node built-in';
  if (spec === 'execa' || spec === 'yaml') return 'I/O library';
  if (/^@temporalio\/(activity|client|worker|testing)/.test(spec)) return 'Temporal package outside the sandbox';
  if (spec.includes('/activities/') || spec.includes('/client/') || spec.includes('/worker/')) return 'outer layer';
  if (layer === 'fsm' && spec.startsWith('@temporalio/')) return 'Temporal package in the pure core';
  if (layer === 'fsm' && spec.includes('/workflows/')) return 'workflow code in the pure core';
  return undefined;
}

const AMBIENT: Rule[] = [
  { name: 'process', pattern: /\bprocess\.(env|cwd|argv|exit|hrtime|platform|pid)\b/ },
  { name: 'Math.random', pattern: /\bMath\.random\s*\(/ },
  { name: 'timers', pattern: /\b(setTimeout|setInterval|setImmediate)\s*\(/ },
  { name: 'require', pattern: /\brequire\s*\(/ },
];
/** The pure core also gets no clock: time arrives as an argument. */
const CLOCK: Rule[] = [
  { name: 'Date.now', pattern: /\bDate\.now\s*\(/ },
  { name: 'new Date()', pattern: /\bnew Date\s*\(\s*\)/ },
  { name: 'performance', pattern: /\bperformance\.now\s*\(/ },
];

function violations(layer: 'fsm' | 'workflows'): string[] {
  const found: string[] = [];
  for (const file of sources(join(ROOT, layer))) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      const where = `${relative(ROOT, file)}:${i + 1}`;
      if (line.trimStart().startsWith('//') || line.trimStart().startsWith('*')) return;
      const spec = IMPORT.exec(line)?.[1];
      const why = spec && forbiddenModule(spec, layer);
      if (why) found.push(`${where} imports ${spec} (${why})`);
      for (const rule of layer === 'fsm' ? [...AMBIENT, ...CLOCK] : AMBIENT) {
        if (rule.pattern.test(line)) found.push(`${where} uses ${rule.name}`);
      }
    });
  }
  return found;
}

describe('determinism boundary', () => {
  it('the pure core (fsm/) has no I/O, Temporal, clock or randomness', () => {
    expect(violations('fsm')).toEqual([]);
  });

  it('workflow code imports only @temporalio/workflow, the core, and activity types', () => {
    expect(violations('workflows')).toEqual([]);
  });

  it('the checker itself catches a violation', () => {
    expect(forbiddenModule('node:fs', 'fsm')).toBe('Node built-in');
    expect(forbiddenModule('execa', 'workflows')).toBe('I/O library');
    expect(forbiddenModule('../activities/run-action.js', 'workflows')).toBe('outer layer');
    expect(forbiddenModule('@temporalio/workflow', 'fsm')).toBe('Temporal package in the pure core');
    expect(forbiddenModule('@temporalio/workflow', 'workflows')).toBeUndefined();
    expect(IMPORT.exec("import type { LoopActivities } from '../activities/index.js';")).toBeNull();
    expect(CLOCK[0]!.pattern.test('const t = Date.now();')).toBe(true);
  });
});
