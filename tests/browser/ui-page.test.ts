/**
 * The built `ll-loop ui` page in Chromium over a run source that gives a run of 10,000 events
 * (the server's real routes and wire format; the source is the test's, since a real run of that
 * length would take minutes): the page stays responsive, its timeline windowed (a few dozen rows
 * in the DOM, not 10,000), the newest event in view, any part reachable by scrolling; a
 * transition sent afterwards lights its state at once.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TimedEvent } from '../../fsm/run/events.js';
import type { RunFollowSink, RunSource } from '../../ui/server/run-source.js';
import { startUiServer, type UiServer } from '../../ui/server/ui-server.js';
import { CHROMIUM, CHROMIUM_FLAGS, ensureChromium, SKIP_BROWSER } from '../support/chromium.js';

const EVENTS = 10_000;

class LongRun implements RunSource {
  sink: RunFollowSink | undefined;
  listRuns = () => Promise.resolve([]);
  followRun(_id: string, sink: RunFollowSink): Promise<void> {
    this.sink = sink;
    sink.graph({
      loop: 'long',
      nodes: [
        { name: 'a', initial: true, terminal: false, failure: false },
        { name: 'b', initial: false, terminal: false, failure: false },
        { name: 'c', initial: false, terminal: false, failure: false },
      ],
      edges: [
        { from: 'a', to: 'b', labels: ['next'], back: false },
        { from: 'b', to: 'a', labels: ['next'], back: true },
        { from: 'b', to: 'c', labels: ['done'], back: false },
      ],
    });
    const ts = new Date(0).toISOString();
    sink.event({ event: 'loop_start', loop: 'long', initial: 'a', max_iterations: 0, seq: 1, ts } as TimedEvent);
    for (let seq = 2; seq <= EVENTS; seq += 1)
      sink.event({ event: 'state_enter', state: seq % 2 ? 'a' : 'b', iteration: seq, seq, ts } as TimedEvent);
    return new Promise(() => undefined);
  }
  stop = () => Promise.resolve({ ok: false, message: 'no' });
  resume = () => Promise.resolve({ ok: false, message: 'no' });
  act = () => Promise.resolve({ ok: false, message: 'no' });
  status = () => Promise.resolve(null);
}

describe.skipIf(SKIP_BROWSER)('the ll-loop ui page with a run of 10,000 events', () => {
  let server: UiServer;
  let browser: Browser;
  const source = new LongRun();

  beforeAll(async () => {
    ensureChromium();
    server = await startUiServer({ source });
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('windows the timeline and stays responsive', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const started = Date.now();
    await page.goto(`${server.url}#/run/long-1`);
    await page.locator(`.timeline .row[data-seq="${EVENTS}"]`).waitFor({ timeout: 20_000 });
    const loaded = Date.now() - started;
    console.log(`ll-loop ui: a run of ${EVENTS} events drawn in ${loaded} ms`);
    expect(await page.locator('.timeline .row').count()).toBeLessThan(100);
    expect(await page.locator('.node.lit[data-state="b"]').count()).toBe(1);
    expect(await page.locator('.edge[data-from="a"][data-to="b"] .count').textContent()).toBe(` ×${EVENTS / 2 - 1}`);
    // The middle of the run is reachable by scrolling; still a window of rows.
    await page.locator('.timeline').evaluate((el) => (el.scrollTop = 5_000 * 22));
    await page.locator('.timeline .row[data-seq="5001"]').waitFor({ timeout: 10_000 });
    expect(await page.locator('.timeline .row').count()).toBeLessThan(100);
    // A transition after all that lights its state without delay.
    const before = Date.now();
    source.sink!.event({
      event: 'state_enter',
      state: 'c',
      iteration: 1,
      seq: EVENTS + 1,
      ts: new Date().toISOString(),
    } as TimedEvent);
    await page.locator('.node.lit[data-state="c"]').waitFor({ timeout: 5_000 });
    console.log(`ll-loop ui: a transition lit its state ${Date.now() - before} ms after the server had it`);
    await page.close();
  }, 120_000);
});
