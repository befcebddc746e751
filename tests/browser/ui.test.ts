/**
 * `ll-loop ui` in a real browser (Debian's Chromium through playwright-core): the built binary
 * serves a temporary project; a run started from the CLI appears in the list; its page lights the
 * state it is in and follows it; an action's output appears while it runs; output holding
 * `<script>` stays text; Stop on the page stops the run; a request without the token is refused;
 * the page says when its server went away and reconnects by itself. Screenshots of the run page at
 * 1280×800 and on a narrow window are saved in test-artifacts/ (LL_TEST_ARTIFACTS).
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsPath } from '../../host/run-files.js';
import { artifactsDir, CHROMIUM, CHROMIUM_FLAGS, ensureChromium, SKIP_BROWSER } from '../support/chromium.js';
import { useOwnServerProject } from '../support/own-server-project.js';
import { freePort } from '../support/processes.js';
import { guardedPage, startUiProcess, stopUiProcess } from '../support/ui-process.js';

const project = useOwnServerProject('ll-loop-webui-', { startServer: true });

const DEMO = (release: string): string => `name: demo
description: plans, works until the test releases it, checks
initial: plan
states:
  plan:
    action: "echo planning; echo '<script>alert(1)</script><img src=x onerror=alert(2)>'"
    capture: plan
    next: work
  work:
    action: "for i in 1 2 3; do echo line-$i; done; while [ ! -f ${release} ]; do sleep 0.1; done; echo finished"
    timeout: 300
    on_yes: check
    on_no: plan
  check:
    action: "echo checked"
    on_yes: done
    on_no: failed
  done:
    terminal: true
  failed:
    terminal: true
    failure: true
`;

let ui: ChildProcess | undefined;
let url = '';
let port = 0;
let browser: Browser;

/** Starts `ll-loop ui --no-open` (with `args`) and waits for the URL it prints. */
async function startUi(args: string[]): Promise<void> {
  ({ child: ui, url, port } = await startUiProcess(project.cwd, project.env, args));
}

const stopUi = () => stopUiProcess(ui);

/** `ll-loop <args…>` in the project. */
const cli = (args: string[]) => project.cli(args);

/** `ll-loop run demo --background --json` with a fresh release file; returns the run id and that file. */
async function startDemo(): Promise<{ id: string; release: string }> {
  const release = join(project.cwd, `release-${Date.now()}`);
  writeFileSync(join(project.cwd, '.loops', 'demo.yaml'), DEMO(release));
  const r = await cli(['run', 'demo', '--background', '--json', '--no-lock']);
  expect(r.code, r.stderr).toBe(0);
  return { id: (JSON.parse(r.stdout) as { instance_id: string }).instance_id, release };
}

/** What a failed wait saw: the page's status badge and the end of the run's events file. */
async function whatThePageShows(page: Page, id: string): Promise<string> {
  const badge = await page
    .locator('#run-status')
    .evaluate((el) => ({
      text: el.textContent,
      current: el.getAttribute('data-current'),
      ahead: el.getAttribute('data-ahead'),
    }))
    .catch((err: Error) => err.message);
  let events: string;
  try {
    events = readFileSync(eventsPath(project.cwd, id), 'utf8').split('\n').slice(-8).join('\n');
  } catch (err) {
    events = (err as Error).message;
  }
  return `the page's status: ${JSON.stringify(badge)}\nthe end of the run's events file:\n${events}`;
}

const newPage = (width?: number, height?: number): Promise<Page> => guardedPage(browser, width, height);

describe.skipIf(SKIP_BROWSER)('ll-loop ui in a browser', () => {
  beforeAll(async () => {
    ensureChromium();
    await startUi(['--port', String(await freePort())]);
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await stopUi();
  }, 60_000);

  it('refuses a request without the token, and an action by GET', async () => {
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/`)).status).toBe(401);
    expect((await fetch(`${base}/api/runs`)).status).toBe(401);
    expect((await fetch(`${base}/api/run/x/stop`, { method: 'POST' })).status).toBe(401);
    expect((await fetch(url)).status).toBe(200);
    const token = new URL(url).searchParams.get('token')!;
    expect((await fetch(`${base}/api/run/x/stop?token=${token}`)).status).toBe(405);
  });

  it('shows a run started from the CLI, lights its state, streams its output, and draws where it went', async () => {
    const page = await newPage();
    await page.goto(url);
    await page.locator('table.runs').waitFor();
    const { id, release } = await startDemo();
    const started = Date.now();
    const row = page.locator(`tr[data-id="${id}"]`);
    await row.waitFor({ timeout: 15_000 });
    console.log(`ll-loop ui: the run appeared in the list ${Date.now() - started} ms after ll-loop run returned`);
    await page.screenshot({ path: join(artifactsDir(), 'ui-runs-1280x800.png') });
    await row.locator('a').click();
    await page.locator('svg.graph').waitFor({ timeout: 15_000 });
    // The lit state follows the run: it is working, waiting for the release file.
    await page.locator('.node.lit[data-state="work"]').waitFor({ timeout: 30_000 });
    // Its output is on the page while the action still runs.
    const running = page.locator('#outputs .action.running');
    await expect.poll(() => running.textContent(), { timeout: 30_000 }).toContain('line-3');
    expect(existsSync(release)).toBe(false);
    // The plan's output holds markup: shown as text, never parsed.
    const outputs = page.locator('#outputs');
    await expect.poll(() => outputs.textContent(), { timeout: 10_000 }).toContain('<script>alert(1)</script>');
    expect(await page.locator('#outputs script, #outputs img, #captured img').count()).toBe(0);
    // vitest's poll gives up after 1 s by default: a loaded machine draws the captured values later.
    await expect.poll(() => page.locator('#captured').textContent(), { timeout: 15_000 }).toContain('planning');

    const dir = artifactsDir();
    await page.screenshot({ path: join(dir, 'ui-run-1280x800.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('svg.graph').waitFor();
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth + 1')).toBe(true);
    await page.screenshot({ path: join(dir, 'ui-run-390x844.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });

    writeFileSync(release, '');
    await page.locator('.node.final[data-state="done"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('.node.lit').count()).toBe(0);
    await expect
      .poll(() => page.locator('#path').textContent(), { timeout: 15_000 })
      .toContain('plan → work → check → done');
    expect(await page.locator('.edge.taken[data-from="work"][data-to="check"] .count').textContent()).toBe(' ×1');
    // The final state is lit from the events file; the run's closing status comes from its history after.
    await expect.poll(() => page.locator('#run-status').textContent(), { timeout: 30_000 }).toBe('succeeded');
    await page.screenshot({ path: join(dir, 'ui-run-done-1280x800.png') });
    await page.close();
  }, 180_000);

  it('stops the run from the page', async () => {
    const { id, release } = await startDemo();
    const page = await newPage();
    await page.goto(`${url}#/run/${encodeURIComponent(id)}`);
    await page.locator('.node.lit[data-state="work"]').waitFor({ timeout: 30_000 });
    await page.locator('#stop').click();
    await expect.poll(() => page.locator('#answer').textContent(), { timeout: 60_000 }).toContain(`stopped ${id}`);
    await expect.poll(() => page.locator('#run-status').textContent(), { timeout: 30_000 }).toBe('stopped');
    const status = await cli(['status', id, '--json']);
    expect(status.stdout).toMatch(/"terminated_by":\s*"cancelled"/);
    expect(existsSync(release)).toBe(false);
    await page.close();
  }, 180_000);

  it('resumes a stopped run from the page and shows the run that continues it', async () => {
    const { id, release } = await startDemo();
    const page = await newPage();
    await page.goto(`${url}#/run/${encodeURIComponent(id)}`);
    await page.locator('.node.lit[data-state="work"]').waitFor({ timeout: 30_000 });
    const stopped = await cli(['stop', id]);
    expect(stopped.code, stopped.stderr).toBe(0);
    await expect.poll(() => page.locator('#run-status').textContent(), { timeout: 30_000 }).toBe('stopped');
    await page.locator('#resume:not([disabled])').click();
    // The page goes to the run the server's resume returned: the stopped run's continuation.
    await page.locator('#run-id', { hasText: `${id}-r1` }).waitFor({ timeout: 60_000 });
    await page.locator('.node.lit[data-state="work"]').waitFor({ timeout: 30_000 });
    writeFileSync(release, '');
    await expect.poll(() => page.locator('#run-status').textContent(), { timeout: 60_000 }).toBe('succeeded');
    await page.close();
  }, 180_000);

  it('lights the state of a run of quick actions as its worker enters it, ahead of its history', async () => {
    // A quick action runs as a local activity: the workflow task that enters its state completes
    // (and the history shows the state) only when the action ends, or at the task's heartbeat (80%
    // of its timeout). The worker's events file has the state at once. `first` (an activity:
    // its history is current) waits until the page follows the run; then `wait` (local) begins.
    // `wait` has 30 s, the most the quick lane takes (LL_LOCAL_ACTIVITY_MAX_TIMEOUT_S): at the
    // loop's 10 s the heartbeat at 8 s brought the history level with the file, and a page slower
    // than that on a loaded machine saw the state lit from the history, not ahead of it.
    const go = join(project.cwd, `go-quick-${Date.now()}`);
    const release = join(project.cwd, `release-quick-${Date.now()}`);
    writeFileSync(
      join(project.cwd, '.loops', 'quick.yaml'),
      `name: quick\ndescription: quick actions\ninitial: first\ndefault_timeout: 10\nstates:\n  first:\n    action: "while [ ! -f ${go} ]; do sleep 0.05; done"\n    timeout: 3600\n    next: wait\n  wait:\n    action: "while [ ! -f ${release} ]; do sleep 0.05; done"\n    timeout: 30\n    next: done\n  done:\n    terminal: true\n`,
    );
    const page = await newPage();
    const r = await cli(['run', 'quick', '--background', '--json', '--no-lock']);
    expect(r.code, r.stderr).toBe(0);
    const id = (JSON.parse(r.stdout) as { instance_id: string }).instance_id;
    await page.goto(`${url}#/run/${encodeURIComponent(id)}`);
    try {
      await page.locator('.node.lit[data-state="first"]').waitFor({ timeout: 30_000 });
      writeFileSync(go, '');
      const started = Date.now();
      // Lit while the history does not have the state yet: from the worker's events file.
      await page
        .locator('#run-status[data-ahead="true"][data-current="wait"]')
        .waitFor({ timeout: 30_000 })
        .catch(async (err: Error) => {
          throw new Error(`${err.message}\n${await whatThePageShows(page, id)}`);
        });
      expect(await page.locator('.node.lit[data-state="wait"]').count()).toBe(1);
      console.log(`ll-loop ui: a quick action's state lit ${Date.now() - started} ms after its first state was let go`);
    } finally {
      writeFileSync(go, '');
      writeFileSync(release, '');
    }
    await page.locator('.node.final[data-state="done"]').waitFor({ timeout: 30_000 });
    await page.close();
  }, 120_000);

  it('says when no worker serves an open run, and no longer once one does', async () => {
    const { id, release } = await startDemo();
    const page = await newPage();
    await page.goto(`${url}#/run/${encodeURIComponent(id)}`);
    await page.locator('.node.lit[data-state="work"]').waitFor({ timeout: 30_000 });
    // The checkout's worker dies (this test's project started it: its record names it).
    const record = JSON.parse(readFileSync(join(project.cwd, '.loops', '.worker', 'worker.json'), 'utf8')) as {
      pid: number;
    };
    process.kill(record.pid, 'SIGKILL');
    try {
      await page.locator('#notice', { hasText: 'no worker serves this run now' }).waitFor({ timeout: 30_000 });
      // Any command brings the checkout's worker back.
      expect((await cli(['list'])).code).toBe(0);
      await page.locator('#notice').waitFor({ state: 'hidden', timeout: 30_000 });
    } finally {
      // The killed worker's action waits for this file: it ends, the run is stopped.
      writeFileSync(release, '');
      await cli(['stop', id, '--force']);
    }
    await page.close();
  }, 120_000);

  it('says when its server went away and reconnects by itself', async () => {
    const page = await newPage();
    await page.goto(url);
    await page.locator('tr.run').first().waitFor({ timeout: 15_000 });
    await stopUi();
    await page.locator('#notice', { hasText: 'unreachable' }).waitFor({ timeout: 15_000 });
    // Started again without --port: the project's last port and token, so the page comes back.
    await startUi([]);
    expect(Number(new URL(url).port)).toBe(port);
    await page.locator('#notice').waitFor({ state: 'hidden', timeout: 15_000 });
    expect(await page.locator('tr.run').count()).toBeGreaterThan(0);
    await page.close();
  }, 120_000);

  it("finds this project's server instead of starting another, and names --port when a port is taken", async () => {
    const again = await cli(['ui', '--no-open', '--port', String(port)]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`already serving this project (pid ${ui!.pid}): ${url}`);
    // A taken port is named when no server of the project runs (while one does, --port for
    // another port is refused first: ui-first-use.test.ts).
    await stopUi();
    const other = createServer();
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const taken = (other.address() as AddressInfo).port;
      const r = await cli(['ui', '--no-open', '--port', String(taken)]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`error: port ${taken} on 127.0.0.1 is already taken by another program`);
      expect(r.stderr).toContain('fix: pick another with ll-loop ui --port <n>');
    } finally {
      other.close();
    }
  });
});
