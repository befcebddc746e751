/**
 * Every package the code imports is declared in package.json: what dist/ and bin/ import at run
 * time in `dependencies` (an installed ll-loop has nothing else), what tests and tooling import in
 * either list. An undeclared package works only while something else happens to install it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|js|mjs)$/.test(name) ? [path] : [];
  });
}

/** The package an import specifier names, or undefined for relative paths and Node built-ins. */
function packageOf(spec: string): string | undefined {
  if (spec.startsWith('.') || spec.startsWith('node:') || builtinModules.includes(spec.split('/')[0]!))
    return undefined;
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function undeclared(dirs: string[], declared: Record<string, string>): string[] {
  const found: string[] = [];
  for (const file of dirs.flatMap((d) => sources(join(ROOT, d)))) {
    for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      const name = packageOf(fileName);
      if (name !== undefined && !(name in declared)) found.push(`${relative(ROOT, file)} imports ${name}`);
    }
  }
  return found;
}

const RUNTIME = ['bin', 'fsm', 'workflows', 'activities', 'worker', 'client'].filter((d) => {
  try {
    return statSync(join(ROOT, d)).isDirectory();
  } catch {
    return false;
  }
});

describe('declared dependencies', () => {
  it('the shipped code imports only `dependencies`', () => {
    expect(undeclared(RUNTIME, pkg.dependencies)).toEqual([]);
  });

  it('tests and tooling import only declared packages', () => {
    expect(undeclared(['tests', 'bench', 'eslint', 'tools'], { ...pkg.dependencies, ...pkg.devDependencies })).toEqual(
      [],
    );
  });
});

describe('install scripts', () => {
  it('every dependency with an install script is reviewed in allowScripts (npm warns of the rest)', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { hasInstallScript?: boolean }>;
    };
    const allow = (pkg as { allowScripts?: Record<string, boolean> }).allowScripts ?? {};
    const withScripts = Object.entries(lock.packages)
      .filter(([path, p]) => path !== '' && p.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(withScripts.length).toBeGreaterThan(0);
    expect(withScripts.filter((name) => !Object.hasOwn(allow, name))).toEqual([]);
  });
});
