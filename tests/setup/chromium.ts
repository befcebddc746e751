/**
 * Global setup of the browser tier: Chromium installed (where missing and we are root) once,
 * before the files' forks start, so that no two of them run apt-get at once.
 */
import { ensureChromium, SKIP_BROWSER } from '../support/chromium.js';

export default function setup(): void {
  if (!SKIP_BROWSER) ensureChromium();
}
