/**
 * Every `ll-loop` subcommand, by name (see client/command-table.ts). Each entry loads its command's
 * module when asked: a command pays only for the modules it uses (`run` never loads `create`'s
 * prompts, `list`'s tables or the worker SDK before its workflow has started; docs/architecture.md,
 * "Performance"). `help` loads them all.
 */
import type { CommandSpec } from '../command-table.js';

export type LoadCommand = () => Promise<CommandSpec>;

export const COMMANDS: Record<string, LoadCommand> = {
  run: async () => (await import('./run.js')).runSpec,
  validate: async () => (await import('./validate.js')).validateSpec,
  review: async () => (await import('./review.js')).reviewSpec,
  suggest: async () => (await import('./suggest.js')).suggestSpec,
  compile: async () => (await import('./compile.js')).compileSpec,
  create: async () => (await import('./create.js')).createSpec,
  show: async () => (await import('./show.js')).showSpec,
  server: async () => (await import('./server.js')).serverSpec,
  schema: async () => (await import('./schema.js')).schemaSpec,
  list: async () => (await import('./list.js')).listSpec,
  install: async () => (await import('./install.js')).installSpec,
  init: async () => (await import('./init.js')).initSpec,
  status: async () => (await import('./status.js')).statusSpec,
  monitor: async () => (await import('./status.js')).monitorSpec,
  stop: async () => (await import('./stop.js')).stopSpec,
  history: async () => (await import('./history.js')).historySpec,
  report: async () => (await import('./report.js')).reportSpec,
  logs: async () => (await import('./logs.js')).logsSpec,
  resume: async () => (await import('./resume.js')).resumeSpec,
  pause: async () => (await import('./pause.js')).pauseSpec,
  unpause: async () => (await import('./pause.js')).unpauseSpec,
  steer: async () => (await import('./steer.js')).steerSpec,
  rerun: async () => (await import('./rerun.js')).rerunSpec,
  worker: async () => (await import('./worker.js')).workerSpec,
  schedule: async () => (await import('./schedule.js')).scheduleSpec,
  queue: async () => (await import('./queue.js')).queueSpec,
  simulate: async () => (await import('./simulate.js')).simulateSpec,
  test: async () => (await import('./test-state.js')).testSpec,
  ui: async () => (await import('./ui.js')).uiSpec,
  mcp: async () => (await import('./mcp.js')).mcpSpec,
  cluster: async () => (await import('./cluster.js')).clusterSpec,
  answer: async () => (await import('./answer.js')).answerSpec,
  inbox: async () => (await import('./inbox.js')).inboxSpec,
  fragments: async () => (await import('./fragments.js')).fragmentsSpec,
  'next-loop': async () => (await import('./next-loop.js')).nextLoopSpec,
};

/** Every command's spec, in the table's order (for `ll-loop help`). */
export async function allCommands(): Promise<Array<[string, CommandSpec]>> {
  // One after the other: a module runner that links modules as it loads them (vitest's, running
  // from source) can wait forever when two concurrent loads enter one import cycle from different
  // ends (the activities had two). The built CLI reads the usage lines from a file
  // (usage-index.ts) and loads no command for `help`.
  const out: Array<[string, CommandSpec]> = [];
  for (const [name, load] of Object.entries(COMMANDS)) out.push([name, await load()]);
  return out;
}

/**
 * Before any command but `worker` itself and `server` (a worker would start the server again
 * right after `server stop`): when the checkout's worker is gone (killed, rebooted, an older
 * ll-loop), start it again, so that open runs continue without `ll-loop resume`.
 */
export async function beforeCommand(name: string, cwd: string): Promise<void> {
  // `cluster` neither: it prepares the server a worker needs.
  if (name !== 'worker' && name !== 'server' && name !== 'cluster')
    (await import('../../runs/workers/checkout-worker.js')).reviveCheckoutWorker(cwd);
}
