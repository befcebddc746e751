/**
 * The determinism boundary as ESLint rules: what the pure core (fsm/) and the workflow code
 * (workflows/) may not import or touch. Used by eslint.config.js and, rule for rule, by
 * tests/unit/determinism-boundary.test.ts. These blocks need no type information.
 *
 * - fsm/ has no I/O, no Temporal, no clock and no randomness: time comes in as an argument.
 * - workflows/ run in Temporal's sandbox: `@temporalio/workflow` (and common), the core, and
 *   types of the activities; its Date is replay-safe, so `Date.now()` is allowed there.
 */
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

/** Every Node built-in's bare name (`node:` ones are matched by prefix: some exist only so). */
const BUILTINS = [...new Set(builtinModules.map((m) => m.replace(/^node:/, '')))];

const NODE_MESSAGE = 'Node built-ins do I/O or read the host: keep them in activities/ (or loader/, client/).';

/** Module paths both layers may not import at all. */
const commonPaths = [
  ...BUILTINS.map((name) => ({ name, message: NODE_MESSAGE })),
  { name: 'execa', message: 'Processes belong to activities/.' },
  { name: 'yaml', message: 'Reading loop files belongs to loader/ and client/; the core sees JSON.' },
  ...['activity', 'client', 'worker', 'testing', 'proto'].map((p) => ({
    name: `@temporalio/${p}`,
    message: 'Not sandbox-safe: workflow code may use @temporalio/workflow (and @temporalio/common).',
  })),
];

const commonPatterns = [
  { group: ['node:*', ...BUILTINS.map((m) => `${m}/*`)], message: NODE_MESSAGE },
  {
    group: [
      '@temporalio/activity/*',
      '@temporalio/client/*',
      '@temporalio/worker/*',
      '@temporalio/testing/*',
      '@temporalio/proto/*',
    ],
    message: 'Not sandbox-safe.',
  },
];

/** A relative import of a folder of another layer, e.g. `../activities/index.js`. */
const layer = (names) => `^(\\.{1,2}/)+(.*/)?(${names.join('|')})(/|$)`;

const fsmImports = {
  paths: commonPaths,
  patterns: [
    ...commonPatterns,
    { group: ['@temporalio/*'], message: 'The pure core knows nothing of Temporal.' },
    {
      regex: layer([
        'workflows',
        'activities',
        'worker',
        'host',
        'errors',
        'temporal',
        'reporters',
        'runs',
        'client',
        'ui',
        'loader',
      ]),
      message: 'The pure core imports only itself (and zod): outer layers depend on it, not the reverse.',
    },
  ],
};

const workflowImports = {
  paths: commonPaths,
  patterns: [
    ...commonPatterns,
    {
      regex: layer(['activities']),
      allowTypeImports: true,
      message: 'Workflows may import activities only as types (`import type`): the implementations run on the worker.',
    },
    {
      regex: layer(['worker', 'host', 'errors', 'temporal', 'reporters', 'runs', 'client', 'ui', 'loader']),
      message: 'Workflow code imports only @temporalio/workflow, fsm/ and activity types.',
    },
  ],
};

const AMBIENT = 'Ambient state breaks replay: it must come in through the workflow input or an activity.';
/** Globals neither layer may read: the host, the real clock's timers, CommonJS. */
const restrictedGlobals = [
  ...['process', 'Buffer', 'crypto', 'global', 'require', 'module', '__dirname', '__filename'].map((name) => ({
    name,
    message: AMBIENT,
  })),
  // Timers: workflows wait with `sleep()` / `condition()` from @temporalio/workflow (durable
  // timers); the core never waits. queueMicrotask has no use in either and escapes the
  // sandbox's ordering of activations, so it goes with them.
  ...[
    'setTimeout',
    'setInterval',
    'setImmediate',
    'clearTimeout',
    'clearInterval',
    'clearImmediate',
    'queueMicrotask',
  ].map((name) => ({
    name,
    message: 'No host timers here: workflows use sleep()/condition() from @temporalio/workflow; the core never waits.',
  })),
];

/** Randomness in both layers; the clock in the core only (the workflow sandbox makes Date replay-safe). */
const randomness = [
  {
    object: 'Math',
    property: 'random',
    message: 'No randomness: use uuid4() from @temporalio/workflow, or take it as input.',
  },
];
const CLOCK = 'The pure core has no clock: time comes in as an argument (`now`).';
const clockProperties = [
  { object: 'Date', property: 'now', message: CLOCK },
  { object: 'performance', property: 'now', message: CLOCK },
];
const clockSyntax = [
  { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: CLOCK },
  { selector: "CallExpression[callee.name='Date']", message: CLOCK },
];
/** no-restricted-imports sees only static imports: a dynamic one would slip past it. */
const dynamicImport = [
  { selector: 'ImportExpression', message: 'No dynamic import(): what these layers may import is checked statically.' },
];

const tsPlugin = { '@typescript-eslint': tseslint.plugin };
const tsLanguage = { parser: tseslint.parser };

/** The pure core. */
export const fsmBoundary = {
  name: 'll-loop/boundary/fsm',
  files: ['fsm/**/*.ts'],
  plugins: tsPlugin,
  languageOptions: tsLanguage,
  rules: {
    '@typescript-eslint/no-restricted-imports': ['error', fsmImports],
    'no-restricted-globals': ['error', ...restrictedGlobals, { name: 'performance', message: CLOCK }],
    'no-restricted-properties': ['error', ...randomness, ...clockProperties],
    'no-restricted-syntax': ['error', ...clockSyntax, ...dynamicImport],
  },
};

/** The workflow code, run in Temporal's sandbox. */
export const workflowsBoundary = {
  name: 'll-loop/boundary/workflows',
  files: ['workflows/**/*.ts'],
  plugins: tsPlugin,
  languageOptions: tsLanguage,
  rules: {
    '@typescript-eslint/no-restricted-imports': ['error', workflowImports],
    'no-restricted-globals': ['error', ...restrictedGlobals],
    'no-restricted-properties': ['error', ...randomness],
    'no-restricted-syntax': ['error', ...dynamicImport],
  },
};

/** Both blocks, in the order eslint.config.js applies them. */
export const boundaryConfigs = [fsmBoundary, workflowsBoundary];
