/**
 * `ll-loop ui --no-open` from the built binary in a test's project, and browser pages guarded
 * against a run's output acting as script: the browser tier's shared parts (tests/browser/).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { BIN } from './cli.js';
import { waitFor } from './processes.js';

export interface UiProcess {
  readonly child: ChildProcess;
  /** The URL it printed, with its token. */
  readonly url: string;
  readonly port: number;
}

const URL_LINE = /http:\/\/\S+token=\S+/;

/** Starts `ll-loop ui --no-open <args…>` in `cwd` and waits for the URL it prints. */
export async function startUiProcess(cwd: string, env: NodeJS.ProcessEnv, args: string[]): Promise<UiProcess> {
  const child = spawn(process.execPath, [BIN, 'ui', '--no-open', ...args], { cwd, env });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  await waitFor(`ll-loop ui's URL (stderr: ${err})`, () => URL_LINE.test(out) || child.exitCode !== null, 60_000);
  expect(child.exitCode, err).toBeNull();
  const url = URL_LINE.exec(out)![0];
  return { child, url, port: Number(new URL(url).port) };
}

/** Ends a `ll-loop ui` started by {@link startUiProcess} (SIGTERM) and waits for its exit. */
export async function stopUiProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** A page of `width`×`height`; a dialog it opens fails the test (a run's output must never run as script). */
export async function guardedPage(browser: Browser, width = 1280, height = 800): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height } });
  page.on('dialog', (d) => {
    throw new Error(`the page opened a dialog: ${d.message()}`);
  });
  return page;
}
