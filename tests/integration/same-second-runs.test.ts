/**
 * Two `ll-loop run`s of one loop started in the same second: the second gets the id
 * `<loop>-<stamp>-2`; both run on the checkout's worker, each with the environment its own
 * command left (the second's start must not overwrite the first's under the clashing id). The
 * clock is frozen so both runs see the same second; the first is still running when the second
 * starts (a closed id is never reused either: tests/integration/project-scope.test.ts).
 * And forty starts of one loop in one second from one process (the checkout's worker starts every
 * `ll-loop run` of its checkout) all start, with ids of their own, past ids another process took.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, inject, it, vi } from 'vitest';
import { runCommand } from '../../runs/start/run-loop.js';
import { instanceIdFor, startLoopRun } from '../../runs/start/start-run.js';
import { checkoutAt } from '../../host/checkout.js';
import { closeTemporal, definition, project, temporal } from './harness.js';

let cwd: string;
let savedAddress: string | undefined;

beforeAll(() => {
  savedAddress = process.env.TEMPORAL_ADDRESS;
  process.env.TEMPORAL_ADDRESS = inject('temporalAddress');
  cwd = project().cwd;
  mkdirSync(join(cwd, '.loops'));
  writeFileSync(
    join(cwd, '.loops', 'twin.yaml'),
    'name: twin\ndescription: d\ninitial: a\nstates:\n  a:\n    action: "sleep 1.5; echo $TWIN_MARK"\n    capture: mark\n    next: done\n  done:\n    terminal: true\n',
  );
});

afterAll(async () => {
  vi.useRealTimers();
  await closeTemporal();
  if (savedAddress === undefined) delete process.env.TEMPORAL_ADDRESS;
  else process.env.TEMPORAL_ADDRESS = savedAddress;
});

it('two runs started in the same second get ids of their own and each its own environment', async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  const now = new Date();
  vi.setSystemTime(now);
  const outputs: string[][] = [[], []];
  const run = (i: number) =>
    // Two runs of one loop in one checkout, at once: without --no-lock the second would be refused (scope busy).
    runCommand({
      cwd,
      target: 'twin',
      context: [],
      dryRun: false,
      noLlm: false,
      json: true,
      noLock: true,
      out: (t) => void outputs[i]!.push(t),
      err: () => undefined,
    });
  process.env.TWIN_MARK = 'first';
  const first = run(0);
  // The second starts once the first's workflow exists (its id taken), however slow the machine.
  // A count of polls, not a deadline: the frozen clock does not move.
  const { client } = await temporal();
  const firstId = instanceIdFor('twin', now);
  for (let i = 0; ; i += 1) {
    const started = await client.workflow
      .getHandle(firstId)
      .describe()
      .then(
        () => true,
        () => false,
      );
    if (started) break;
    if (i >= 600) throw new Error(`timed out waiting for run ${firstId} to start`);
    await new Promise((r) => setTimeout(r, 50));
  }
  process.env.TWIN_MARK = 'second';
  const second = run(1);
  delete process.env.TWIN_MARK;
  const codes = await Promise.all([first, second]);
  vi.useRealTimers();
  expect(codes).toEqual([0, 0]);

  const ids = outputs.map((o) => (JSON.parse(o.join('')) as { instance_id: string }).instance_id);
  expect(ids[1]).toBe(`${ids[0]}-2`);
  for (const id of ids) expect((await client.workflow.getHandle(id).describe()).taskQueue).toBe(checkoutAt(cwd).queue);
  const marks = outputs.map(
    (o) => (JSON.parse(o.join('')) as { captured: { mark: { output: string } } }).captured.mark.output,
  );
  expect(marks).toEqual(['first', 'second']);
}, 60_000);

it('forty starts of one loop in one second from one process get forty ids, past those another process took', async () => {
  const { client } = await temporal();
  // Nobody polls this queue: the runs only need to exist; they are terminated at the end.
  const queue = `same-second-${process.pid}-${Date.now()}`;
  const def = definition({
    name: 'crowd',
    description: 'd',
    initial: 'a',
    states: { a: { action: 'true', next: 'done' }, done: { terminal: true } },
  });
  const base = `crowd-${process.pid}-${Date.now()}`;
  const common = {
    client,
    definition: def,
    file: join(cwd, '.loops', 'crowd.yaml'),
    cwd,
    taskQueue: queue,
    searchAttributes: true,
    started: new Date(),
  };
  // Another process's runs of that second: the base and `-2`, by fixed ids.
  const taken = [base, `${base}-2`];
  for (const workflowId of taken) await startLoopRun({ ...common, workflowId });
  const starts = await Promise.allSettled(Array.from({ length: 40 }, () => startLoopRun({ ...common, idBase: base })));
  const ids = starts.map((s) => (s.status === 'fulfilled' ? s.value.instanceId : `refused: ${String(s.reason)}`));
  try {
    expect(ids.filter((id) => id.startsWith('refused'))).toEqual([]);
    expect(new Set(ids).size).toBe(40);
    expect([...ids].sort()).toEqual(Array.from({ length: 40 }, (_, i) => `${base}-${i + 3}`).sort());
  } finally {
    for (const id of [...taken, ...ids.filter((id) => !id.startsWith('refused'))])
      await client.workflow
        .getHandle(id)
        .terminate('test over')
        .catch(() => undefined);
  }
}, 60_000);
