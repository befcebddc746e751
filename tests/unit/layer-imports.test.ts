/**
 * The layer and room tables of docs/architecture.md, enforced by ESLint (eslint/layers.js, run by
 * `npm run lint`): the project's config applies it to every layer, and the rule refuses each kind of crossing — a value
 * import, `export … from`, a dynamic import, a type where only types are allowed, a folder in no
 * table — placed as real files of the repository would be.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { commandFilesOf, layersConfig, placeOf } from '../../eslint/layers.js';

const ROOT = join(import.meta.dirname, '..', '..');
const eslint = new ESLint({
  cwd: ROOT,
  overrideConfigFile: true,
  overrideConfig: [{ ...layersConfig, languageOptions: { parser: tseslint.parser } }],
});

/** The rule's messages for `code` placed at `file` (relative to the repository). */
async function lintAt(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, file) });
  return result!.messages.map((m) => `${m.line}: ${m.message}`);
}

describe('layer and room imports (eslint/layers.js)', () => {
  // The real tree is linted by `npm run lint` (tools/static-checks.mjs, in every `npm test`) with
  // the project's config: checked here is that that config applies the rule to every layer. (This
  // test linted the ~350 sources again itself: the unit tier's longest, over 60 s on a busy machine.)
  it('the project config applies the rule to every layer of docs/architecture.md', async () => {
    const project = new ESLint({ cwd: ROOT });
    const files = [
      'fsm/format.ts',
      'workflows/loop-workflow.ts',
      'loader/catalog.ts',
      'activities/action-spawner.ts',
      'worker/create-worker.ts',
      'host/checkout.ts',
      'errors/errors.ts',
      'temporal/connection.ts',
      'reporters/human.ts',
      'runs/worker-ask.ts',
      'runs/start/start-run.ts',
      'worker/hosting/serve-checkout.ts',
      'client/cli.ts',
      'ui/server/guard.ts',
    ];
    for (const file of files) {
      const config = (await project.calculateConfigForFile(join(ROOT, file))) as { rules?: Record<string, unknown> };
      expect(config.rules?.['ll-loop/layer-imports'], file).toEqual([2]);
    }
    expect(layersConfig.files).toEqual([
      '{fsm,workflows,loader,activities,worker,host,errors,temporal,reporters,runs,client,ui}/**/*.ts',
    ]);
  });

  it('places files in layers and rooms', () => {
    expect(placeOf(join(ROOT, 'runs', 'start', 'start-run.ts'))).toBe('runs/start');
    expect(placeOf(join(ROOT, 'runs', 'worker-ask.ts'))).toBe('runs');
    expect(placeOf(join(ROOT, 'worker', 'hosting', 'serve-checkout.ts'))).toBe('worker/hosting');
    expect(placeOf(join(ROOT, 'worker', 'create-worker.ts'))).toBe('worker');
    expect(placeOf(join(ROOT, 'client', 'cli.ts'))).toBe('client');
    expect(placeOf(join(ROOT, 'fsm', 'schema.ts'))).toBe('fsm');
    expect(placeOf(join(ROOT, 'fsm', 'run', 'transition.ts'))).toBe('fsm/run');
    expect(placeOf(join(ROOT, 'fsm', 'definition', 'paradigms', 'goal.ts'))).toBe('fsm/definition');
    expect(placeOf(join(ROOT, 'host', 'checkout.ts'))).toBe('host');
  });

  it('refuses an outer room imported from an inner one', async () => {
    const messages = await lintAt(
      'reporters/x.ts',
      "import { findRuns } from '../runs/find/find-runs.js';\nexport { startRun } from '../runs/start/start-run.js';\n",
    );
    expect(messages).toHaveLength(2);
    expect(messages[0]).toContain('reporters may not import runs/find');
    expect(messages[1]).toContain('reporters may not import runs/start');
    // Inside the runs service, a lower room never reaches a higher one, nor the worker's processes.
    expect(await lintAt('runs/find/x.ts', "import { followRun } from '../follow/follow-run.js';\n")).toEqual([
      expect.stringContaining('runs/find may not import runs/follow'),
    ]);
    expect(
      await lintAt('runs/start/x.ts', "import { serve } from '../../worker/hosting/serve-checkout.js';\n"),
    ).toEqual([expect.stringContaining('runs/start may not import worker/hosting')]);
    expect(await lintAt('temporal/x.ts', "import { findRuns } from '../runs/find/find-runs.js';\n")).toEqual([
      expect.stringContaining('temporal may not import runs/find'),
    ]);
  });

  it('refuses a dynamic import as a static one', async () => {
    const messages = await lintAt('host/x.ts', "export const load = () => import('../client/cli.js');\n");
    expect(messages).toEqual([expect.stringContaining('host may not import client')]);
  });

  it('allows types where the table says types, and says so for a value import', async () => {
    const code = "import type { RunData } from './run/snapshot.js';\nimport { begin } from './run/begin.js';\n";
    const messages = await lintAt('fsm/x.ts', code);
    expect(messages).toEqual([expect.stringMatching(/^2: fsm may not import fsm\/run \(types only/)]);
  });

  it('keeps definition-time code off run-time code inside fsm/', async () => {
    const messages = await lintAt('fsm/definition/x.ts', "import { transition } from '../run/transition.js';\n");
    expect(messages).toEqual([expect.stringContaining('fsm/definition may not import fsm/run')]);
    expect(await lintAt('fsm/run/x.ts', "import { validateLoop } from '../definition/validate.js';\n")).toEqual([]);
  });

  it('refuses the worker core to the CLI outside the rooms that host or replay it', async () => {
    const code = "import { createLoopWorker } from '../../worker/create-worker.js';\n";
    expect(await lintAt('worker/hosting/x.ts', code)).toEqual([]);
    expect(await lintAt('client/show/x.ts', code)).toEqual([
      expect.stringContaining('client/show may not import worker'),
    ]);
  });

  it('names a folder that is in no table', async () => {
    const messages = await lintAt('client/newroom/x.ts', "import { EXIT } from '../../errors/exit-codes.js';\n");
    expect(messages).toEqual([expect.stringContaining('client/newroom/ is in no table')]);
  });

  it('keeps commands from being a library: only the CLI entry imports client/commands/', async () => {
    const stop = "import { stopCommand } from '../../client/commands/stop.js';\n";
    expect(await lintAt('ui/server/x.ts', stop)).toEqual([
      expect.stringMatching(/^1: ui\/server may not import client\/commands: commands are no library/),
      expect.stringContaining("stopCommand: a command's implementation"),
    ]);
    expect(await lintAt('worker/x.ts', "import { runSpec } from '../client/commands/run.js';\n")).toEqual([
      expect.stringContaining('worker may not import client/commands'),
    ]);
    expect(
      await lintAt('runs/control/x.ts', "import { resumeSpec } from '../../client/commands/resume.js';\n"),
    ).toEqual([expect.stringContaining('runs/control may not import client/commands')]);
    // A top-level file of client/ other than the entry, even for a type or a helper.
    expect(await lintAt('client/x.ts', "import type { EarlyStart } from './commands/run.js';\n")).toEqual([
      expect.stringContaining('client may not import client/commands'),
    ]);
    expect(await lintAt('client/x.ts', "import { positiveInt } from './commands/argument-errors.js';\n")).toHaveLength(
      1,
    );
    // The entry and the command table do.
    const entry =
      "import { COMMANDS } from './commands/index.js';\nimport type { EarlyStart } from './commands/run.js';\n";
    expect(await lintAt('client/cli.ts', entry)).toEqual([]);
    expect(await lintAt('client/command-table.ts', entry)).toEqual([]);
  });

  it('refuses a command imported by another command or a helper; the table and helpers are shared', async () => {
    const commands = commandFilesOf(readFileSync(join(ROOT, 'client', 'commands', 'index.ts'), 'utf8'));
    for (const name of ['run', 'stop', 'validate', 'install', 'inbox', 'list', 'logs', 'ui'])
      expect(commands.has(join(ROOT, 'client', 'commands', `${name}.ts`)), name).toBe(true);
    for (const helper of ['run-flags', 'argument-errors', 'list-tables', 'logs-print', 'index'])
      expect(commands.has(join(ROOT, 'client', 'commands', `${helper}.ts`)), helper).toBe(false);

    expect(await lintAt('client/commands/worker.ts', "import { runOptionsFromArgv } from './run.js';\n")).toEqual([
      expect.stringContaining('client/commands/run.ts is a command (the table loads it)'),
    ]);
    // A helper may not reach a command either, statically, dynamically or for a type.
    const fromHelper =
      "import type { LoopListing } from './list.js';\nexport const inbox = () => import('./inbox.js');\n";
    expect(await lintAt('client/commands/list-builtin.ts', fromHelper)).toEqual([
      expect.stringContaining('client/commands/list.ts is a command'),
      expect.stringContaining('client/commands/inbox.ts is a command'),
    ]);
    const shared =
      "import { runOptionsFromArgv } from './run-flags.js';\nimport { CONTEXT_FLAGS } from './context-flags.js';\n";
    expect(await lintAt('client/commands/worker.ts', shared)).toEqual([]);
    expect(await lintAt('client/commands/index.ts', "export const run = () => import('./run.js');\n")).toEqual([]);
  });

  it("refuses a command's implementation kept in its room to anyone but the commands", async () => {
    const code =
      "import { resumeCommand, resumeInBackground } from '../../runs/resume/resume-run.js';\nimport { rerunCommand } from '../../runs/control/rerun.js';\n";
    expect(await lintAt('ui/server/x.ts', code)).toEqual([
      expect.stringMatching(/^1: resumeCommand: a command's implementation .* call the typed function of its room/),
      expect.stringMatching(/^2: rerunCommand: a command's implementation/),
    ]);
    expect(await lintAt('worker/hosting/x.ts', "import { runCommand } from '../../runs/start/run-loop.js';\n")).toEqual(
      [expect.stringContaining("runCommand: a command's implementation")],
    );
    // The commands call them; a type, or a name that only ends so elsewhere (fsm's answerCommand), is no call.
    expect(
      await lintAt('client/commands/x.ts', "import { resumeCommand } from '../../runs/resume/resume-run.js';\n"),
    ).toEqual([]);
    expect(
      await lintAt('ui/server/x.ts', "import type { resumeCommand } from '../../runs/resume/resume-run.js';\n"),
    ).toEqual([]);
    expect(await lintAt('workflows/x.ts', "import { answerCommand } from '../fsm/human.js';\n")).toEqual([]);
    expect(await lintAt('client/create/x.ts', "import { idForCommand } from './answers.js';\n")).toEqual([]);
  });

  it('lets the ui command start the ui server, and nothing below the CLI reach ui/', async () => {
    const code = "import { startUiServer } from '../../ui/server/ui-server.js';\n";
    expect(await lintAt('client/commands/x.ts', code)).toEqual([]);
    expect(await lintAt('runs/control/x.ts', code)).toEqual([
      expect.stringContaining('runs/control may not import ui/server'),
    ]);
  });
});
