/**
 * The Temporal Web UI shows ll-loop runs: headless Chromium from Debian's packages, driven by
 * playwright-core (no browser download), opens the embedded dev server's UI, finds a run by its
 * loop name and sees its current state. Set LL_SKIP_BROWSER_TEST=1 where no Chromium can be had.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_FLAGS, ensureChromium, SKIP_BROWSER } from '../support/chromium.js';
import { BIN, runCliBinary } from '../support/cli.js';
import { freePort } from '../support/processes.js';

describe.skipIf(SKIP_BROWSER)('Temporal Web UI', () => {
  let cwd: string;
  let env: NodeJS.ProcessEnv;
  let uiPort: number;
  let run: ChildProcess | undefined;

  beforeAll(async () => {
    ensureChromium();
    cwd = mkdtempSync(join(tmpdir(), 'll-loop-ui-'));
    mkdirSync(join(cwd, '.loops'));
    writeFileSync(
      join(cwd, '.loops', 'uiloop.yaml'),
      'name: uiloop\ndescription: web ui check\ninitial: warm\nstates:\n  warm:\n    action: "true"\n    next: sleeping\n  sleeping:\n    action: "sleep 37.1337"\n    next: done\n  done:\n    terminal: true\n',
    );
    uiPort = await freePort();
    const { TEMPORAL_ADDRESS: _drop, ...rest } = process.env;
    env = { ...rest, LL_TEMPORAL_PORT: String(await freePort()), LL_TEMPORAL_UI_PORT: String(uiPort), NO_COLOR: '1' };
  }, 900_000);

  afterAll(async () => {
    if (run && run.exitCode === null) {
      const exited = new Promise((resolve) => run!.once('exit', resolve));
      run.kill('SIGINT');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
      // A second Ctrl-C exits at once; the exiting process still kills its action's group.
      if (run.exitCode === null) {
        run.kill('SIGINT');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      }
    }
    await runCliBinary(['server', 'stop'], { cwd, env });
  }, 60_000);

  it('finds the run by loop name and shows its current state', async () => {
    run = spawn(process.execPath, [BIN, 'run', 'uiloop'], { cwd, env });
    let out = '';
    run.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    for (let i = 0; i < 300 && !out.includes('sleep 37.1337'); i += 1) await new Promise((r) => setTimeout(r, 100));
    expect(out).toContain('sleeping → sleep 37.1337');

    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
    try {
      const page = await browser.newPage();
      const query = encodeURIComponent('LoopName="uiloop" AND ExecutionStatus="Running"');
      await page.goto(`http://127.0.0.1:${uiPort}/namespaces/default/workflows?query=${query}`);
      const link = page.locator('a', { hasText: /uiloop-\d{8}T\d{6}/ }).first();
      await link.waitFor({ timeout: 20_000 });
      await link.click();
      // The checkout's worker polls the run's task queue, and the UI can see it (a `/` in the queue name hid it).
      await expect.poll(async () => page.innerText('body'), { timeout: 20_000 }).toMatch(/ll-loop\.checkout\./);
      expect(await page.innerText('body')).not.toContain('No workers polling');
      await page.getByText('Search Attributes', { exact: true }).first().click();
      await expect
        .poll(async () => page.innerText('body'), { timeout: 20_000 })
        .toMatch(/"LoopState": \[\s*"sleeping"\s*\]/);
      expect(await page.innerText('body')).toMatch(/"LoopName": "uiloop"/);
    } finally {
      await browser.close();
    }
  });

  it('lists a run that ended in a failure state as Failed, and a stopped one as Canceled', async () => {
    writeFileSync(
      join(cwd, '.loops', 'uibad.yaml'),
      'name: uibad\ninitial: check\nstates:\n  check:\n    action: "false"\n    on_yes: done\n    on_no: broken\n  done:\n    terminal: true\n  broken:\n    terminal: true\n    failure: true\n',
    );
    writeFileSync(
      join(cwd, '.loops', 'uistop.yaml'),
      'name: uistop\ninitial: wait\nstates:\n  wait:\n    action: "sleep 41.1337"\n    next: done\n  done:\n    terminal: true\n',
    );
    const failed = await runCliBinary(['run', 'uibad', '--no-lock'], { cwd, env, timeoutMs: 120_000 });
    expect(failed.code, failed.stderr).toBe(2); // the first test's run still holds the checkout's scope: --no-lock
    const started = await runCliBinary(['run', 'uistop', '--background', '--no-lock'], {
      cwd,
      env,
      timeoutMs: 120_000,
    });
    expect(started.code).toBe(0);
    const stopped = await runCliBinary(['stop', 'uistop'], { cwd, env, timeoutMs: 120_000 });
    expect(stopped.code, stopped.stderr).toBe(0);

    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
    try {
      const page = await browser.newPage();
      for (const [loop, status] of [
        ['uibad', 'Failed'],
        ['uistop', 'Canceled'],
      ] as const) {
        await page.goto(
          `http://127.0.0.1:${uiPort}/namespaces/default/workflows?query=${encodeURIComponent(`LoopName="${loop}"`)}`,
        );
        const row = page.locator('tr, [role="row"]', { hasText: new RegExp(`${loop}-\\d{8}T\\d{6}`) }).first();
        await row.waitFor({ timeout: 20_000 });
        // The badge is upper-cased by CSS (innerText applies it).
        await expect
          .poll(async () => (await row.innerText()).toLowerCase(), { timeout: 20_000 })
          .toContain(status.toLowerCase());
      }
    } finally {
      await browser.close();
    }
  });
});
