/**
 * Acting on runs from `ll-loop ui`'s page in a real browser (Debian's Chromium through
 * playwright-core), each through the server's POST routes and the CLI's own client code: answering
 * a run waiting in human states (approval with an edit, a choice, JSON refused by its schema and
 * then accepted, text), pause and unpause, steer (to a state, with context and a note), re-run
 * from a state of the path (the page then shows the new run); waiting, paused runs shown distinctly
 * in the list and on the run page; and the page saying so when the Temporal server goes away, and
 * recovering by itself once it is back.
 */
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliBinary } from '../support/cli.js';
import { CHROMIUM, CHROMIUM_FLAGS, ensureChromium, SKIP_BROWSER } from '../support/chromium.js';
import { useOwnServerProject } from '../support/own-server-project.js';
import { freePort } from '../support/processes.js';
import { guardedPage, startUiProcess, stopUiProcess } from '../support/ui-process.js';

const project = useOwnServerProject('ll-loop-webui-act-', { startServer: true });

const ASKS = `name: asks
description: asks a person four ways
initial: review
states:
  review:
    action_type: human
    prompt: "Apply the plan <b>now</b>?"
    ask: approval
    timeout: 3600
    on_yes: pick
    on_no: failed
    on_edit: pick
  pick:
    action_type: human
    prompt: "Which way?"
    ask: choice
    options: [ship, rework]
    timeout: 3600
    on_ship: shape
    on_rework: failed
  shape:
    action_type: human
    prompt: "Give the shape"
    ask: json
    schema:
      type: object
      required: [size]
      properties:
        size: { type: integer }
    timeout: 3600
    next: words
  words:
    action_type: human
    prompt: "Any last words?"
    ask: text
    timeout: 3600
    next: done
  done:
    terminal: true
  failed:
    terminal: true
    failure: true
`;

const STEADY = `name: steady
description: loops in a until steered to c
initial: a
max_iterations: 2000
context:
  mode: slow
states:
  a:
    action: "sleep 0.2"
    next: a
  c:
    action: "echo mode=\${context.mode}"
    next: done
  done:
    terminal: true
`;

let ui: ChildProcess | undefined;
let url = '';
let browser: Browser;

async function startUi(args: string[]): Promise<void> {
  ({ child: ui, url } = await startUiProcess(project.cwd, project.env, args));
}

const cli = (args: string[]) => runCliBinary(args, { cwd: project.cwd, env: project.env, timeoutMs: 120_000 });

async function start(name: string, yaml: string): Promise<string> {
  writeFileSync(join(project.cwd, '.loops', `${name}.yaml`), yaml);
  const r = await cli(['run', name, '--background', '--json', '--no-lock']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { instance_id: string }).instance_id;
}

const newPage = (): Promise<Page> => guardedPage(browser);

async function runPage(id: string): Promise<Page> {
  const page = await newPage();
  await page.goto(`${url}#/run/${encodeURIComponent(id)}`);
  await page.locator('svg.graph').waitFor({ timeout: 30_000 });
  return page;
}

// Generous: on a loaded machine a run's next state can take half a minute to show.
const T = { timeout: 60_000 };

describe.skipIf(SKIP_BROWSER)('acting on runs from ll-loop ui', () => {
  beforeAll(async () => {
    ensureChromium();
    await startUi(['--port', String(await freePort())]);
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await stopUiProcess(ui);
  }, 60_000);

  it('answers a run waiting for a person: approval with an edit, a choice, JSON checked by its schema, text', async () => {
    const id = await start('asks', ASKS);
    const list = await newPage();
    await list.goto(url);
    const row = list.locator(`tr.run[data-id="${id}"]`);
    await row.locator('.badge.waiting', { hasText: 'waiting for a person' }).waitFor(T);
    expect(await row.getAttribute('class')).toContain('outcome-waiting');
    await list.close();

    const page = await runPage(id);
    await page.locator('#run-status.waiting', { hasText: 'waiting for a person · review' }).waitFor(T);
    // The prompt is text, never markup.
    await page.locator('#human-prompt', { hasText: 'Apply the plan <b>now</b>?' }).waitFor(T);
    expect(await page.locator('#human-prompt b').count()).toBe(0);
    expect(await page.locator('#human-deadline').textContent()).toContain('deadline');
    // An empty edit is told in the page's words (the box), not the CLI's flag.
    await page.locator('#answer-edit').click();
    await page.locator('#act-answer.bad', { hasText: 'write the edit in the box' }).waitFor(T);
    expect(await page.locator('#act-answer').textContent()).not.toContain('--edit');
    await page.locator('#answer-text').fill('apply it, but smaller');
    await page.locator('#answer-edit').click();
    await page.locator('#act-answer', { hasText: `answered ${id} in state review: edit` }).waitFor(T);

    await page.locator('#run-status', { hasText: 'waiting for a person · pick' }).waitFor(T);
    await page.locator('#answer-choice-0', { hasText: 'ship' }).click();
    await page.locator('#act-answer', { hasText: 'in state pick: ship' }).waitFor(T);

    await page.locator('#run-status', { hasText: 'waiting for a person · shape' }).waitFor(T);
    await page.locator('#answer-text').fill('{"size": "big"}');
    await page.locator('#answer-send').click();
    await page.locator('#act-answer.bad', { hasText: 'does not match the schema of state "shape"' }).waitFor(T);
    expect(await page.locator('#run-status').textContent()).toContain('shape');
    await page.locator('#answer-text').fill('{"size": 3}');
    await page.locator('#answer-send').click();
    await page.locator('#act-answer.ok', { hasText: 'in state shape' }).waitFor(T);

    await page.locator('#run-status', { hasText: 'waiting for a person · words' }).waitFor(T);
    await page.locator('#answer-text').fill('done <script>alert(1)</script>');
    await page.locator('#answer-send').click();
    await page.locator('#run-status.succeeded').waitFor(T);
    await page.locator('#human').waitFor({ state: 'hidden', ...T });
    // The path shows the last state with the run's end event, which may come after the status.
    await page.locator('#path', { hasText: 'review → pick → shape → words → done' }).waitFor(T);
    expect(await page.locator('#path').textContent()).toContain('review → pick → shape → words → done');
    await page.close();
  }, 240_000);

  let steadyId = '';

  it('pauses, unpauses and steers a run, shown paused in the list and on its page', async () => {
    steadyId = await start('steady', STEADY);
    const page = await runPage(steadyId);
    await page.locator('#run-status.running').waitFor(T);
    await page.locator('#pause:not([disabled])').click();
    await page.locator('#act-answer.ok', { hasText: `paused ${steadyId}` }).waitFor(T);
    await page.locator('#run-status.paused', { hasText: 'paused by' }).waitFor(T);
    const list = await newPage();
    await list.goto(url);
    await list.locator(`tr.run.outcome-paused[data-id="${steadyId}"] .badge.paused`).waitFor(T);
    await list.close();

    await page.locator('#unpause:not([disabled])').click();
    await page.locator('#act-answer.ok', { hasText: `unpaused ${steadyId}` }).waitFor(T);
    await page.locator('#run-status.running').waitFor(T);

    await page.locator('#steer-to').selectOption('c');
    await page.locator('#steer-context').fill('mode=fast');
    await page.locator('#steer-note').fill('enough');
    await page.locator('#steer:not([disabled])').click();
    // Steered to c, the run may end before the answer is seen: the controls of an open run (the
    // answer among them) are hidden once it closes, so the answer is waited for in the page.
    await page.locator('#act-answer.ok', { hasText: `steered ${steadyId}` }).waitFor({ ...T, state: 'attached' });
    await page.locator('#run-status.succeeded').waitFor(T);
    await page.locator('.action[data-state="c"] pre', { hasText: 'mode=fast' }).waitFor(T);
    await page.locator('.timeline').evaluate((el) => (el.scrollTop = el.scrollHeight));
    await page.close();
  }, 240_000);

  it('re-runs from a state of the path and shows the new run', async () => {
    expect(steadyId).not.toBe('');
    const page = await runPage(steadyId);
    await page.locator('#run-status.succeeded').waitFor(T);
    await page.locator('#rerun-from').selectOption('c#1');
    await page.locator('#rerun-context').fill('mode=again');
    await page.locator('#rerun:not([disabled])').click();
    await page.locator('#run-id', { hasText: `${steadyId}-f1` }).waitFor(T);
    await page.locator('#run-status.succeeded').waitFor(T);
    await page.locator('.action[data-state="c"] pre', { hasText: 'mode=again' }).waitFor(T);
    expect(await page.locator('#path').textContent()).toContain('c → done');
    await page.close();
  }, 240_000);

  it('shows output with terminal escapes, invalid UTF-8 and <script> as neutral text', async () => {
    const id = await start(
      'noisy',
      `name: noisy
description: prints bytes a page must not obey
initial: say
states:
  say:
    action: "printf '\\\\033[31mred\\\\033[0m \\\\377\\\\376 bad <script>alert(3)</script>\\\\n'"
    next: done
  done:
    terminal: true
`,
    );
    const page = await runPage(id);
    await page.locator('#run-status.succeeded').waitFor(T);
    const out = page.locator('.action[data-state="say"] pre');
    await out.filter({ hasText: 'alert(3)' }).waitFor(T);
    const text = (await out.textContent()) ?? '';
    expect(text).toContain('red');
    expect(text).toContain('<script>alert(3)</script>');
    expect(text).toContain('\uFFFD');
    expect(text).not.toContain('\u001b');
    expect(await page.locator('.outputs script').count()).toBe(0);
    await page.close();
  }, 120_000);

  it('says when the Temporal server went away, and recovers by itself once it is back', async () => {
    const id = await start('asks', ASKS);
    const list = await newPage();
    await list.goto(url);
    await list.locator(`tr.run[data-id="${id}"]`).waitFor(T);
    const page = await runPage(id);
    await page.locator('#run-status.waiting').waitFor(T);
    const stopped = await cli(['server', 'stop']);
    expect(stopped.code, stopped.stderr).toBe(0);
    await list.locator('#notice:not([hidden])', { hasText: 'cannot list runs' }).waitFor({ timeout: 60_000 });
    await page.locator('#notice:not([hidden])', { hasText: 'Temporal is unreachable' }).waitFor({ timeout: 60_000 });
    const started = await cli(['server', 'start']);
    expect(started.code, started.stderr).toBe(0);
    await list.locator('#notice').waitFor({ state: 'hidden', timeout: 60_000 });
    await page.locator('#notice').waitFor({ state: 'hidden', timeout: 60_000 });
    // The page acts again once it is back: the run still waits, and takes its answer (its question
    // shows once the worker, reconnecting on its own backoff, answers the status query again).
    await page.locator('#answer-no').click({ timeout: 60_000 });
    await page.locator('#path', { hasText: 'review → failed' }).waitFor({ timeout: 60_000 });
    await list.close();
    await page.close();
  }, 300_000);
});
