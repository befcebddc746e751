/**
 * Faults on the real cluster, with the built binary and the checkout's worker as a user runs
 * them: the Temporal server SIGKILLed mid-action and started again, PostgreSQL restarted under a
 * running loop. Each run finishes; no completed action runs again (each action appends a line to
 * a file of its own when it starts and when it ends).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/processes.js';
import { ensureServerUp, killServer, loadCluster, restartPostgres, restartServer } from './support/cluster.js';
import { startPostgres, stopPostgres } from './support/postgres.js';
import { useClusterProject } from './support/project.js';

const project = useClusterProject('ll-loop-cluster-faults-');

// Every later test and file uses the one server: a test that failed with it down starts it again.
afterEach(async () => {
  await ensureServerUp(loadCluster());
}, 200_000);

/** a (quick) → b (slow) → c; every action logs its start and end to `<name>-<state>.log`. */
function threeStates(name: string, seconds: number): string {
  const step = (state: string, sleep: number) =>
    `"echo start >> ${name}-${state}.log; sleep ${sleep}; echo end >> ${name}-${state}.log; echo ${state}-done"`;
  return `name: ${name}
description: a, then a slow b, then c
scope: ["${name}"]
initial: a
states:
  a:
    action: ${step('a', 0)}
    capture: first
    next: b
  b:
    action: ${step('b', seconds)}
    capture: second
    next: c
  c:
    action: "echo '\${captured.first.output}+\${captured.second.output}' > ${name}-c.out"
    terminal: true
`;
}

function expectEachActionOnce(name: string): void {
  expect(project.lines(`${name}-a.log`)).toEqual(['start', 'end']);
  expect(project.lines(`${name}-b.log`)).toEqual(['start', 'end']);
  expect(project.lines(`${name}-c.out`)).toEqual(['a-done+b-done']);
}

describe('the Temporal server is SIGKILLed mid-action and started again', () => {
  it('the run finishes and each action ran once', async () => {
    const cluster = loadCluster();
    project.loop('killed', threeStates('killed', 6));
    const run = project.start(['run', 'killed']);
    await waitFor('state b to start', () => project.lines('killed-b.log').length > 0, 90_000);
    await killServer(cluster);
    await restartServer(cluster);
    const done = await run.exited;
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(done.stdout).toContain('Loop completed: c');
    expectEachActionOnce('killed');
  }, 240_000);

  it('still down when the action ends: its result waits for the server, the run finishes, each action once', async () => {
    const cluster = loadCluster();
    project.loop('outage', threeStates('outage', 3));
    const run = project.start(['run', 'outage']);
    await waitFor('state b to start', () => project.lines('outage-b.log').length > 0, 90_000);
    await killServer(cluster);
    await waitFor('state b to end while the server is down', () => project.lines('outage-b.log').length === 2, 30_000);
    await restartServer(cluster);
    const done = await run.exited;
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(done.stdout).toContain('Loop completed: c');
    expectEachActionOnce('outage');
  }, 240_000);
});

describe('PostgreSQL restarts under a running loop', () => {
  it('a quick restart mid-action: the run finishes and each action ran once', async () => {
    const cluster = loadCluster();
    project.loop('pgquick', threeStates('pgquick', 4));
    const run = project.start(['run', 'pgquick']);
    await waitFor('state b to start', () => project.lines('pgquick-b.log').length > 0, 90_000);
    restartPostgres(cluster);
    const done = await run.exited;
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(done.stdout).toContain('Loop completed: c');
    expectEachActionOnce('pgquick');
  }, 240_000);

  it('down while the action ends: the run finishes once it is back, each action once', async () => {
    const cluster = loadCluster();
    project.loop('pg', threeStates('pg', 6));
    const run = project.start(['run', 'pg']);
    await waitFor('state b to start', () => project.lines('pg-b.log').length > 0, 90_000);
    stopPostgres(cluster.postgres);
    await waitFor('state b to end while PostgreSQL is down', () => project.lines('pg-b.log').length === 2, 30_000);
    startPostgres(cluster.postgres);
    const done = await run.exited;
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(done.stdout).toContain('Loop completed: c');
    expectEachActionOnce('pg');
  }, 240_000);
});
