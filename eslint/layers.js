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

/** Folders whose sub-folders are rooms of their own: `fsm/run`, `runs/follow`, `worker/hosting`, … */
const ROOMED = new Set(['fsm', 'runs', 'worker', 'client', 'ui']);
/** Sub-folders that belong to their parent's room (the paradigm compilers are definition-time code). */
const FOLDED = { 'fsm/definition/paradigms': 'fsm/definition' };

/** Where a file belongs: a layer (`loader`), or a room (`fsm/run`, `runs/start`); top-level files of a roomed layer are the layer itself. */
export function placeOf(file) {
  const parts = relative(ROOT, file).split(sep);
  if (parts.length > 3 && FOLDED[parts.slice(0, 3).join('/')]) return FOLDED[parts.slice(0, 3).join('/')];
  if (ROOMED.has(parts[0]) && parts.length > 2) return `${parts[0]}/${parts[1]}`;
  return parts[0];
}

const FSM_ALL = ['fsm', 'fsm/evaluators', 'fsm/definition', 'fsm/run', 'fsm/tools'];
/** What every place above the engine may import: the loop language, loading, this machine, errors, the server. */
const BELOW_RUNS = ['loader', 'host', 'workflows', 'errors', 'temporal', 'worker', 'reporters', ...FSM_ALL];
/** The rooms of the runs service, lowest first: each may import the ones before it (and `runs`). */
const RUNS_ROOMS = [
  'runs/workers',
  'runs/find',
  'runs/scopes',
  'runs/human',
  'runs/transport',
  'runs/follow',
  'runs/start',
  'runs/schedules',
  'runs/resume',
  'runs/control',
  'runs/service',
];
const runsRoom = (room) => ['runs', ...RUNS_ROOMS.slice(0, RUNS_ROOMS.indexOf(room)), ...BELOW_RUNS];

/**
 * What each place may import besides itself, lowest floor first; `type:` entries allow type-only
 * imports. Inside fsm/: the loop language at its top (schema, templates, evaluators' dispatch) is
 * shared; definition-time code never reaches run-time code, run-time code may read definition-time
 * helpers, tools read both. Above the engine: the runs service (runs/), then the worker's
 * processes (worker/hosting, worker/service), then the web view's server, then the CLI.
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
  // The typed errors every layer above throws, and the exit codes they map to.
  errors: ['loader', 'workflows', ...FSM_ALL],
  // Reaching and running the Temporal server: connections, the embedded dev server, the CLI's install.
  temporal: ['errors', 'loader', 'host', 'workflows'],
  activities: ['loader', 'host', ...FSM_ALL, 'type:workflows'],
  // Temporal workers of this code: the workflow bundle, the activities, the replay of histories.
  worker: ['activities', 'loader', 'host', 'workflows', 'errors', 'temporal', ...FSM_ALL],
  // The human and JSON reporters over the one event stream (the web page shares their safe text).
  reporters: [...FSM_ALL, 'type:worker', 'type:host', 'type:workflows'],
  runs: BELOW_RUNS,
  ...Object.fromEntries(RUNS_ROOMS.map((room) => [room, runsRoom(room)])),
  // The worker's side of the transport: its wire types come from the report types of the rooms
  // that make them (a type only: those rooms ask the worker through it).
  'runs/transport': [...runsRoom('runs/transport'), 'type:runs/follow'],
  // The worker's socket: the request table's handlers, the dispatcher, the queue of starts.
  'worker/socket': ['runs', ...RUNS_ROOMS, ...BELOW_RUNS],
  // The worker's processes (the checkout's, a pool's, one queue's).
  'worker/hosting': ['worker/socket', 'runs', ...RUNS_ROOMS, ...BELOW_RUNS],
  // The worker as a user service (systemd, launchd).
  'worker/service': ['worker/hosting', ...BELOW_RUNS],
  'client/show': ['reporters', ...FSM_ALL],
  // `create --describe` asks the LLM in the CLI process, through the host CLI and provider code.
  'client/create': ['errors', 'loader', 'activities', ...FSM_ALL],
  'client/init': ['errors', 'loader', ...FSM_ALL],
  // `ll-loop mcp`: its tools act through the runs service and the loader, never a command.
  'client/mcp': ['runs', ...RUNS_ROOMS, 'client/show', 'client/create', ...BELOW_RUNS],
  // `ll-loop ui`: its server acts on runs through the runs service; its page (browser code) shares
  // only the wire types, fsm's event types and the reporters' terminal-safe text.
  'ui/server': ['runs', ...RUNS_ROOMS, 'client/show', ...BELOW_RUNS],
  'ui/page': ['type:ui/server', 'reporters', ...FSM_ALL.map((p) => `type:${p}`)],
  // The CLI: its entry and command table, and the commands (only the entry imports those).
  // The command table's context carries `run`'s early start (a type of runs/start).
  client: ['errors', 'temporal', 'loader', 'host', 'type:runs/start', ...FSM_ALL],
  'client/commands': [
    'client',
    'client/show',
    'client/create',
    'client/init',
    'client/mcp',
    'ui/server',
    'worker/hosting',
    'worker/socket',
    'worker/service',
    'runs',
    ...RUNS_ROOMS,
    ...BELOW_RUNS,
  ],
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
    return `${from} may not import client/commands: commands are no library; only client/cli.ts and client/command-table.ts import them. Call the function of the room the command calls (runs/control/, runs/resume/, …), which returns a typed result`;
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
 * A command's implementation kept in its room (`runCommand`, …: it prints and returns an exit
 * code) is the command's too: outside client/commands/ nothing imports one; it calls the room's
 * typed function (`resume`, `controlRun`, …).
 */
function judgeCommandNames(fromFile, spec, node) {
  if (!spec.startsWith('.') || placeOf(fromFile) === 'client/commands' || ENTRY_FILES.has(fromFile)) return undefined;
  if (node.importKind === 'type' || !/^(client|runs|ui)\b/.test(placeOf(join(dirname(fromFile), spec))))
    return undefined;
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
  files: ['{fsm,workflows,loader,activities,worker,host,errors,temporal,reporters,runs,client,ui}/**/*.ts'],
  plugins: { 'll-loop': layersPlugin },
  languageOptions: { parser: tseslint.parser },
  rules: { 'll-loop/layer-imports': 'error' },
};
