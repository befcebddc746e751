/**
 * The `ll-loop ui` page: `#/` is the runs list, `#/run/<id>` a run. Everything it needs is in
 * this bundle (no CDN); it talks only to the server that served it.
 */
import { showRun } from './run-view.js';
import { showRuns } from './runs-view.js';

const root = document.getElementById('app')!;
let leave: (() => void) | undefined;

function route(): void {
  leave?.();
  const run = /^#\/run\/(.+)$/.exec(location.hash);
  if (run) {
    const id = decodeURIComponent(run[1]!);
    document.title = `${id} · ll-loop`;
    leave = showRun(root, id);
  } else {
    document.title = `${root.dataset.title ?? 'll-loop'} · runs`;
    leave = showRuns(root);
  }
}

window.addEventListener('hashchange', route);
route();
