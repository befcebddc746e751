/**
 * `ll-loop ui` as a new user meets it, in Chromium over real runs on a Temporal server of the
 * file's own: a crashed run's page says how it ended, whole, in the list's word; a stopped run's
 * last action does not run for ever; the graph of a 30-state loop keeps the lit state and the
 * final one in view, and a succeeded run never shows another outcome first; an approval without
 * `on_edit` offers no edit, and the answer shows by the question; a fan-out's items fold under
 * their parent in the list, each listed on its page; a finished run shows no live controls, its
 * sub-loop's outcome in words and its captured values readable; edges never cross their labels;
 * and `ll-loop ui --port` while the project's server runs elsewhere is refused, leaving its record.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactsDir, CHROMIUM, CHROMIUM_FLAGS, ensureChromium, SKIP_BROWSER } from '../support/chromium.js';
import { useOwnServerProject } from '../support/own-server-project.js';
import { freePort } from '../support/processes.js';
import { guardedPage, startUiProcess, stopUiProcess } from '../support/ui-process.js';

const project = useOwnServerProject('ll-loop-webui-first-', { startServer: true });

let ui: ChildProcess | undefined;
let url = '';
let port = 0;
let browser: Browser;

const cli = (args: string[]) => project.cli(args);

async function start(name: string, yaml: string): Promise<string> {
  writeFileSync(join(project.cwd, '.loops', `${name}.yaml`), yaml);
  const r = await cli(['run', name, '--background', '--json', '--no-lock']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { instance_id: string }).instance_id;
}

async function runPage(id: string): Promise<Page> {
  const page = await guardedPage(browser);
  await page.goto(`${url}#/run/${encodeURIComponent(id)}`);
  await page.locator('svg.graph').waitFor({ timeout: 30_000 });
  return page;
}

/** Whether the element of `selector` (in the graph) lies wholly inside the graph's box as drawn now. */
async function inGraphView(page: Page, selector: string): Promise<boolean> {
  return page.locator('#graph').evaluate((graph, sel) => {
    const box = graph.getBoundingClientRect();
    const node = graph.querySelector(sel)!.getBoundingClientRect();
    return node.top >= box.top && node.bottom <= box.bottom && node.left >= box.left && node.right <= box.right;
  }, selector);
}

/** A drawn path, as the page's script sees it (the tests are typed without the DOM's types). */
interface DrawnPath {
  getTotalLength(): number;
  getPointAtLength(at: number): { x: number; y: number };
}

const T = { timeout: 60_000 };

describe.skipIf(SKIP_BROWSER)('ll-loop ui as a new user meets it', () => {
  beforeAll(async () => {
    ensureChromium();
    ({ child: ui, url, port } = await startUiProcess(project.cwd, project.env, ['--port', String(await freePort())]));
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await stopUiProcess(ui);
  }, 60_000);

  it("shows a crashed run's end whole beside its badge, in the word the list and the CLI use", async () => {
    const id = await start(
      'crash',
      `name: crash\ndescription: its check has no route for a failure\ninitial: check\nstates:\n  check:\n    action: "exit 1"\n    on_yes: done\n  done:\n    terminal: true\n`,
    );
    const page = await runPage(id);
    await page.locator('#run-status.error', { hasText: 'error' }).waitFor(T);
    const summary = page.locator('#run-summary');
    await summary.waitFor({ state: 'visible', ...T });
    // The end line `ll-loop status` prints, whole (the error and its fix), not cut off.
    const status = await cli(['status', id]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`^run ${id} · error `));
    const endLine = status.stdout.split('\n\n')[1]!.trim();
    expect(endLine).toContain('Loop failed in state check');
    expect((await summary.textContent())?.trim()).toBe(endLine);
    expect(await summary.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
    await page.screenshot({ path: join(artifactsDir(), 'ui-crash.png') });
    await page.goto(`${url}#/`);
    await page.locator(`tr.run[data-id="${id}"] .badge.error`, { hasText: 'error' }).waitFor(T);
    await page.close();
  }, 120_000);

  it('stops a run from its page in the same words, and its last action does not run for ever', async () => {
    const release = join(project.cwd, `release-${Date.now()}`);
    const id = await start(
      'held',
      `name: held\ndescription: works until released\ninitial: work\nstates:\n  work:\n    action: "echo working; while [ ! -f ${release} ]; do sleep 0.1; done"\n    timeout: 300\n    next: done\n  done:\n    terminal: true\n`,
    );
    const page = await runPage(id);
    await page.locator('#outputs .action.running[data-state="work"]').waitFor(T);
    await page.locator('#stop:not([disabled])').click();
    await expect
      .poll(() => page.locator('#answer').textContent(), T)
      .toMatch(new RegExp(`^stopped ${id}: Loop stopped`));
    expect(await page.locator('#answer').textContent()).not.toMatch(/cancel/);
    await page.locator('#run-status.stopped', { hasText: 'stopped' }).waitFor(T);
    const work = page.locator('#outputs .action[data-state="work"] h4');
    await expect.poll(() => work.textContent(), T).toContain('ended with the run (stopped)');
    await page.reload();
    await page.locator('#run-status.stopped').waitFor(T);
    await expect.poll(() => work.textContent(), T).toContain('ended with the run (stopped)');
    expect(await page.locator('#outputs .action.running').count()).toBe(0);
    // It printed "working": what a stop cut short keeps no output, which is not "no output".
    expect(await page.locator('#outputs .action[data-state="work"] pre').textContent()).toBe(
      '(its output is not kept: the end of the run cut it short)',
    );
    writeFileSync(release, '');
    await page.close();
  }, 120_000);

  it('keeps the lit state of a 30-state loop in view, then its final state, and shows only succeeded at its end', async () => {
    const hold = join(project.cwd, `hold-${Date.now()}`);
    const states = Array.from({ length: 30 }, (_, i) => {
      const n = i + 1;
      if (n === 30) return `  s30:\n    terminal: true\n`;
      const action = n === 20 ? `while [ ! -f ${hold} ]; do sleep 0.1; done` : 'true';
      return `  s${n}:\n    action: "${action}"\n    timeout: 300\n    next: s${n + 1}\n`;
    });
    const id = await start('long', `name: long\ndescription: thirty states\ninitial: s1\nstates:\n${states.join('')}`);
    const page = await runPage(id);
    // Every word and colour the badge shows from now on (kept on the badge, which the page never replaces).
    await page.locator('#run-status').evaluate((badge) => {
      const seen: string[] = [];
      (badge as unknown as { seen: string[] }).seen = seen;
      const note = () => seen.push(`${badge.getAttribute('class')}|${badge.textContent}`);
      note();
      new badge.ownerDocument.defaultView!.MutationObserver(note).observe(badge, {
        attributes: true,
        childList: true,
        characterData: true,
      });
    });
    await page.locator('.node.lit[data-state="s20"]').waitFor(T);
    expect(await inGraphView(page, '.node.lit[data-state="s20"]')).toBe(true);
    await page.screenshot({ path: join(artifactsDir(), 'ui-long-s20.png') });
    writeFileSync(hold, '');
    await page.locator('.node.final[data-state="s30"]').waitFor(T);
    await page.locator('#run-status.succeeded').waitFor(T);
    expect(await inGraphView(page, '.node.final[data-state="s30"]')).toBe(true);
    const badges = await page.locator('#run-status').evaluate((b) => (b as unknown as { seen: string[] }).seen);
    const ended = badges.filter((b) => !/^badge (running|paused)\|/.test(b));
    expect(ended.length).toBeGreaterThan(0);
    expect(
      ended.every((b) => b === 'badge succeeded|succeeded'),
      badges.join('\n'),
    ).toBe(true);
    // A finished run: no live controls above the graph, nothing captured said plainly.
    expect(await page.locator('#live-controls').isHidden()).toBe(true);
    expect(await page.locator('.act-box').evaluate((el) => el.getBoundingClientRect().height)).toBeLessThan(90);
    expect((await page.locator('#captured').textContent())?.trim()).toBe('(none)');
    await page.screenshot({ path: join(artifactsDir(), 'ui-long-done.png') });
    await page.close();
  }, 180_000);

  it('offers no edit where the state routes none, and shows the answer by the question', async () => {
    const id = await start(
      'ask',
      `name: ask\ndescription: one approval without on_edit\ninitial: review\nstates:\n  review:\n    action_type: human\n    prompt: "Ship it?"\n    ask: approval\n    timeout: 3600\n    on_yes: done\n    on_no: done\n  done:\n    terminal: true\n`,
    );
    const page = await runPage(id);
    await page.locator('#human-prompt', { hasText: 'Ship it?' }).waitFor(T);
    expect(await page.locator('#answer-edit').count()).toBe(0);
    expect(await page.locator('#human #answer-text').count()).toBe(0);
    await page.locator('#answer-yes').click();
    await page.locator('#act-answer.ok', { hasText: `answered ${id} in state review: yes` }).waitFor(T);
    // Right under the question box, not under the steer and re-run controls.
    expect(await page.locator('#human').evaluate((el) => el.nextElementSibling?.id)).toBe('act-answer');
    await page.screenshot({ path: join(artifactsDir(), 'ui-answered.png') });
    await page.locator('#run-status.succeeded').waitFor(T);
    await page.close();
  }, 120_000);

  it("folds a fan-out's items under their parent in the list, lists each on its page, and draws no label under a line", async () => {
    writeFileSync(
      join(project.cwd, '.loops', 'one.yaml'),
      `name: one\ndescription: one item\ninitial: run\nparameters:\n  item: { type: string, required: true }\nstates:\n  run:\n    action: "echo item \${context.item}"\n    capture: said\n    next: done\n  done: { terminal: true }\n`,
    );
    writeFileSync(
      join(project.cwd, '.loops', 'inner.yaml'),
      `name: inner\ndescription: a sub-loop\ninitial: a\nstates:\n  a:\n    action: "echo inner"\n    next: done\n  done: { terminal: true }\n`,
    );
    const items = Array.from({ length: 8 }, (_, i) => `i${i}`);
    const id = await start(
      'fan',
      `name: fan\ndescription: a sub-loop, then a fan-out\ninitial: first\nstates:\n  first:\n    loop: inner\n    on_yes: empty\n    on_no: gave_up\n  empty:\n    action: "true"\n    capture: nothing\n    next: fix_all\n  fix_all:\n    parallel:\n      items: ${JSON.stringify(items)}\n      loop: one\n      with: { item: "\${item}" }\n      max_workers: 3\n    on_yes: done\n    on_no: gave_up\n  done: { terminal: true }\n  gave_up: { terminal: true, failure: true }\n`,
    );
    const page = await runPage(id);
    await page.locator('#run-status.succeeded').waitFor({ timeout: 120_000 });
    const fanout = page.locator('#children li.fanout[data-state="fix_all"]');
    await expect.poll(() => fanout.locator('li[data-index]').count(), T).toBe(8);
    expect(await fanout.locator('li.ok', { hasText: 'succeeded' }).count()).toBe(8);
    await page.locator('#children li.subloop', { hasText: '· succeeded' }).waitFor(T);
    // Captured values readable: a JSON join pretty-printed, an empty value marked.
    const captured = page.locator('#captured');
    await captured.locator('dt', { hasText: 'fix_all' }).waitFor(T);
    expect(await captured.textContent()).not.toContain('\\"');
    expect(await captured.locator('dd .muted', { hasText: '(empty output)' }).count()).toBe(1);
    // No edge passes through a label's backdrop.
    const crossings = await page.locator('svg.graph').evaluate((svg) => {
      const rects = [...svg.querySelectorAll('.edge.label .backdrop')].map((r) => ({
        x: Number(r.getAttribute('x')),
        y: Number(r.getAttribute('y')),
        w: Number(r.getAttribute('width')),
        h: Number(r.getAttribute('height')),
      }));
      const hits: string[] = [];
      for (const edge of svg.querySelectorAll('g.edge:not(.label)')) {
        const path = edge.querySelector('path') as unknown as DrawnPath;
        const length = path.getTotalLength();
        for (let at = 0; at <= length; at += 2) {
          const p = path.getPointAtLength(at);
          if (rects.some((r) => p.x > r.x + 1 && p.x < r.x + r.w - 1 && p.y > r.y + 1 && p.y < r.y + r.h - 1))
            hits.push(`${edge.getAttribute('data-from')}→${edge.getAttribute('data-to')}`);
        }
      }
      return [...new Set(hits)];
    });
    expect(crossings).toEqual([]);
    await page.screenshot({ path: join(artifactsDir(), 'ui-fan-done.png') });

    await page.goto(`${url}#/`);
    const parent = page.locator(`tr.run[data-id="${id}"]`);
    await parent.waitFor(T);
    await expect.poll(() => parent.getAttribute('data-children'), T).toBe('9');
    expect(await page.locator(`tr.run.child`).count()).toBe(0);
    expect(await page.locator(`tr.run[data-id^="${id}."]`).count()).toBe(0);
    await parent.locator('button.fold').click();
    await expect.poll(() => page.locator('tr.run.child').count(), T).toBe(9);
    await page.screenshot({ path: join(artifactsDir(), 'ui-runs-fan-open.png') });
    await page.close();
  }, 240_000);

  it("refuses --port while the project's server serves on another, and keeps its record", async () => {
    const other = await freePort();
    const r = await cli(['ui', '--no-open', '--port', String(other)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `error: ll-loop ui already serves this project on port ${port} (pid ${ui!.pid}): ${url}`,
    );
    expect(r.stderr).toContain(`ll-loop ui --port ${other}`);
    const record = JSON.parse(readFileSync(join(project.cwd, '.loops', '.running', 'ui.json'), 'utf8')) as {
      port: number;
    };
    expect(record.port).toBe(port);
    const again = await cli(['ui', '--no-open']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`already serving this project (pid ${ui!.pid}): ${url}`);
  });
});
