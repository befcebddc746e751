/**
 * The layer and room tables of docs/architecture.md as an ESLint rule: every relative import (static,
 * `export … from`, or dynamic with a literal path) of a source file goes to its own place or to one
 * its row allows, so that inner layers never reach outwards and each room keeps to its neighbours.
 * The import is resolved against the importing file, so the rule judges places, not spellings.
 * (What fsm/ and workflows/ may import from outside the repository is eslint/boundary.js's business.)
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import tseslint from 'typescript-eslint';

const ROOT = join(import.meta.dirname, '..');

/** Folders whose sub-folders are rooms of their own: `fsm/run`, `client/follow`, … */
const ROOMED = new Set(['fsm', 'client', 'ui']);
/** Sub-folders that belong to their parent's room (the paradigm compilers are definition-time code). */
const FOLDED = { 'fsm/definition/paradigms': 'fsm/definition' };

/** Where a file belongs: a layer (`loader`), or a room (`fsm/run`, `client/start`); top-level files of a roomed layer are the layer itself. */
export function placeOf(file) {
  const parts = relative(ROOT, file).split(sep);
  if (parts.length > 3 && FOLDED[parts.slice(0, 3).join('/')]) return FOLDED[parts.slice(0, 3).join('/')];
  if (ROOMED.has(parts[0]) && parts.length > 2) return `${parts[0]}/${parts[1]}`;
  return parts[0];
}

const FSM_ALL = ['fsm', 'fsm/evaluators', 'fsm/definition', 'fsm/run', 'fsm/tools'];
const CLIENT_OUTER = ['loader', 'host', 'workflows', ...FSM_ALL];

/**
 * What each place may import besides itself; `type:` entries allow type-only imports. Inside fsm/:
 * the loop language at its top (schema, templates, evaluators' dispatch) is shared; definition-time
 * code never reaches run-time code, run-time code may read definition-time helpers, tools read both.
 */
const ALLOWED = {
  fsm: ['fsm/evaluators', 'type:fsm/run'],
  'fsm/evaluators': ['fsm'],
  'fsm/definition': ['fsm', 'fsm/evaluators'],
  'fsm/run': ['fsm', 'fsm/evaluators', 'fsm/definition'],
  'fsm/tools': ['fsm', 'fsm/evaluators', 'fsm/definition', 'fsm/run'],
  workflows: FSM_ALL,
  loader: FSM_ALL,
  host: ['loader', ...FSM_ALL.map((p) => `type:${p}`), 'type:workflows'],
  activities: ['loader', 'host', ...FSM_ALL, 'type:workflows'],
  worker: ['activities', 'loader', 'host', 'workflows', ...FSM_ALL],
  // `client/commands` only from the entry (ENTRY_FILES below), not from the other top-level files.
  // The command table's context carries `run`'s early start (a type of client/start).
  client: ['client/temporal', 'type:client/start', ...CLIENT_OUTER],
  'client/commands': [
    'client/runs-service',
    'client',
    'client/runs',
    'client/follow',
    'client/start',
    'client/resume',
    'client/control',
    'client/schedules',
    'client/scopes',
    'client/hosting',
    'client/temporal',
    'client/reporters',
    'client/show',
    'client/create',
    'client/service',
    // The `ui` command starts the ui server (ui/server/ui-server.ts) over its run source: the server
    // sits beside the commands, over the client's rooms, and imports no command.
    'ui/server',
    'client/human',
    'worker',
    ...CLIENT_OUTER,
  ],
  'client/runs': ['client', 'client/temporal', 'client/reporters', ...CLIENT_OUTER],
  'client/follow': [
    'client/transport',
    'client',
    'client/runs',
    'client/scopes',
    'client/temporal',
    'client/reporters',
    'worker',
    ...CLIENT_OUTER,
  ],
  'client/start': [
    'client/transport',
    'client',
    'client/human',
    'client/runs',
    'client/follow',
    'client/scopes',
    'client/hosting',
    'client/temporal',
    'client/reporters',
    'worker',
    ...CLIENT_OUTER,
  ],
  'client/resume': [
    'client',
    'client/runs',
    'client/follow',
    'client/start',
    'client/scopes',
    'client/hosting',
    'client/temporal',
    'client/reporters',
    'worker',
    ...CLIENT_OUTER,
  ],
  'client/control': [
    'client/runs-service',
    'client',
    'client/runs',
    'client/follow',
    'client/start',
    'client/resume',
    'client/scopes',
    'client/hosting',
    'client/temporal',
    'client/reporters',
    'worker',
    ...CLIENT_OUTER,
  ],
  'client/schedules': ['client', 'client/runs', 'client/start', 'client/temporal', ...CLIENT_OUTER],
  'client/scopes': ['client', 'client/runs', 'client/temporal', ...CLIENT_OUTER],
  'client/hosting': [
    'client/transport',
    'client',
    'client/human',
    'client/runs',
    'client/follow',
    'client/start',
    'client/schedules',
    'client/scopes',
    'client/temporal',
    'worker',
    ...CLIENT_OUTER,
  ],
  'client/transport': [
    'client/runs-service',
    'client',
    'client/runs',
    'client/follow',
    'client/start',
    'client/human',
    'client/scopes',
    'client/hosting',
    'client/temporal',
    ...CLIENT_OUTER,
  ],
  'client/runs-service': [
    'client/control',
    'client/resume',
    'client',
    'client/transport',
    'client/runs',
    'client/follow',
    'client/human',
    'client/scopes',
    'client/hosting',
    'client/temporal',
    ...CLIENT_OUTER,
  ],
  'client/temporal': ['client', 'loader'],
  'client/reporters': [...FSM_ALL, 'type:worker', 'type:host', 'type:workflows'],
  'client/show': ['client/reporters', ...FSM_ALL],
  'client/create': ['client', 'loader', ...FSM_ALL],
  'client/service': ['client', 'client/hosting', 'host'],
  // `ll-loop ui`: its server acts on runs through the client's rooms; its page (browser code)
  // shares only the wire types, fsm's event types and the terminal-safe text of client/reporters.
  'ui/server': [
    'client/runs-service',
    'client',
    'client/runs',
    'client/follow',
    'client/resume',
    'client/control',
    'client/human',
    'client/hosting',
    'client/temporal',
    'client/show',
    'client/reporters',
    'worker',
    ...CLIENT_OUTER,
  ],
  'ui/page': ['type:ui/server', 'client/reporters', ...FSM_ALL.map((p) => `type:${p}`)],
  'client/human': ['client', 'client/runs', 'client/temporal', 'client/reporters', ...CLIENT_OUTER],
};

/** The files outside client/commands/ that may import it: the CLI's entry and its command table. */
const ENTRY_FILES = new Set(['client/cli.ts', 'client/command-table.ts'].map((f) => join(ROOT, f)));

const COMMANDS_DIR = join(ROOT, 'client', 'commands');
const TABLE_FILE = join(COMMANDS_DIR, 'index.ts');
let commandFiles;

/**
 * The command files: those the command table (client/commands/index.ts) loads, `import('./x.js')`.
 * Every other file of client/commands/ is a helper (flags, argument errors, a command's parts).
 */
export function commandFilesOf(tableText) {
  return new Set([...tableText.matchAll(/import\('\.\/([\w-]+)\.js'\)/g)].map((m) => join(COMMANDS_DIR, `${m[1]}.ts`)));
}

function isCommandFile(file) {
  commandFiles ??= commandFilesOf(readFileSync(TABLE_FILE, 'utf8'));
  return commandFiles.has(file);
}

/**
 * Commands are not a library: nothing but the CLI's entry imports client/commands/, and inside it
 * only the table imports a command's file. What two commands share is a helper file of
 * client/commands/ (run-flags.ts, validate-report.ts, …) or a function of the room that owns it.
 */
function judgeCommandImport(fromFile, target, from) {
  if (from !== 'client/commands') {
    if (ENTRY_FILES.has(fromFile)) return undefined;
    return `${from} may not import client/commands: commands are no library; only client/cli.ts and client/command-table.ts import them. Call the function of the room the command calls (client/control/, client/resume/, …), which returns a typed result`;
  }
  const file = target.replace(/\.js$/, '.ts');
  if (fromFile === TABLE_FILE || fromFile === file || !isCommandFile(file)) return undefined;
  return `client/commands/${relative(COMMANDS_DIR, file)} is a command (the table loads it): a command imports no other command; move what both need into a helper file of client/commands/ or into the room that owns it`;
}

/** The verdict on one import: undefined when allowed, else the message. */
function judgeImport(fromFile, spec, typeOnly) {
  if (!spec.startsWith('.')) return undefined;
  const from = placeOf(fromFile);
  const allowed = ALLOWED[from];
  if (!allowed) return `${from}/ is in no table of docs/architecture.md: add its row to eslint/layers.js and the docs`;
  const target = join(dirname(fromFile), spec);
  const to = placeOf(target);
  if (to === 'client/commands') return judgeCommandImport(fromFile, target, from);
  if (to === from || allowed.includes(to) || (typeOnly && allowed.includes(`type:${to}`))) return undefined;
  const typeNote = allowed.includes(`type:${to}`) ? ' (types only: use `import type`)' : '';
  return `${from} may not import ${to}${typeNote}: see the layer tables of docs/architecture.md`;
}

/**
 * A command's implementation kept in its room (`resumeCommand`, `rerunCommand`, `controlCommand`,
 * `runCommand`, …: it prints and returns an exit code) is the command's too: outside client/commands/
 * nothing imports one; it calls the room's typed function (`resumeInBackground`, `controlRun`, …).
 */
function judgeCommandNames(fromFile, spec, node) {
  if (!spec.startsWith('.') || placeOf(fromFile) === 'client/commands' || ENTRY_FILES.has(fromFile)) return undefined;
  if (node.importKind === 'type' || !placeOf(join(dirname(fromFile), spec)).startsWith('client')) return undefined;
  const names = node.specifiers
    .filter((s) => s.type === 'ImportSpecifier' && s.importKind !== 'type' && /^[a-z]+Command$/.test(s.imported.name))
    .map((s) => s.imported.name);
  if (names.length === 0) return undefined;
  return `${names.join(', ')}: a command's implementation (it prints, and returns an exit code) is for its command alone; call the typed function of its room, which returns what happened`;
}

const layerImports = {
  meta: {
    type: 'problem',
    docs: { description: 'Imports follow the layer and room tables of docs/architecture.md.' },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    const check = (node, source, typeOnly) => {
      if (!source || typeof source.value !== 'string') return;
      const message = judgeImport(file, source.value, typeOnly);
      if (message) context.report({ node, message: `${message} (${source.value})` });
    };
    return {
      ImportDeclaration: (node) => {
        check(
          node,
          node.source,
          node.importKind === 'type' ||
            (node.specifiers.length > 0 && node.specifiers.every((s) => s.importKind === 'type')),
        );
        const named = judgeCommandNames(file, node.source.value, node);
        if (named) context.report({ node, message: `${named} (${node.source.value})` });
      },
      ExportNamedDeclaration: (node) => check(node, node.source, node.exportKind === 'type'),
      ExportAllDeclaration: (node) => check(node, node.source, node.exportKind === 'type'),
      ImportExpression: (node) => check(node, node.source, false),
    };
  },
};

const layersPlugin = { rules: { 'layer-imports': layerImports } };

/** The block eslint.config.js applies: every source file outside tests/ and the tooling. */
export const layersConfig = {
  name: 'll-loop/layers',
  files: ['{fsm,workflows,loader,activities,worker,host,client,ui}/**/*.ts'],
  plugins: { 'll-loop': layersPlugin },
  languageOptions: { parser: tseslint.parser },
  rules: { 'll-loop/layer-imports': 'error' },
};
