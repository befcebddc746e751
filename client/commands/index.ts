/** Every `ll-loop` subcommand, by name (see client/command-table.ts). */
import type { CommandSpec } from '../command-table.js';
import { resumeSpec } from './resume-spec.js';
import { runSpec } from './run-spec.js';
import { scheduleSpec } from './schedule-spec.js';
import { schemaSpec, serverSpec, validateSpec } from './simple-specs.js';
import { historySpec } from './history.js';
import { compileSpec } from './compile.js';
import { createSpec } from './create.js';
import { installSpec } from './install.js';
import { listSpec } from './list.js';
import { showSpec } from './show.js';
import { monitorSpec, statusSpec } from './status.js';
import { queueSpec } from './queue.js';
import { stopSpec } from './stop.js';
import { workerSpec } from './worker-spec.js';
import { reviveCheckoutWorker } from '../runs/checkout-worker.js';

export const COMMANDS: Record<string, CommandSpec> = {
  run: runSpec,
  validate: validateSpec,
  compile: compileSpec,
  create: createSpec,
  show: showSpec,
  server: serverSpec,
  schema: schemaSpec,
  list: listSpec,
  install: installSpec,
  status: statusSpec,
  monitor: monitorSpec,
  stop: stopSpec,
  history: historySpec,
  resume: resumeSpec,
  worker: workerSpec,
  schedule: scheduleSpec,
  queue: queueSpec,
};

/**
 * Before any command but `worker` itself and `server` (a worker would start the server again
 * right after `server stop`): when the checkout's worker is gone (killed, rebooted, an older
 * ll-loop), start it again, so that open runs continue without `ll-loop resume`.
 */
export function beforeCommand(name: string, cwd: string): void {
  if (name !== 'worker' && name !== 'server') reviveCheckoutWorker(cwd);
}
