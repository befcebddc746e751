// A process of its own holding no Temporal worker (as `ll-loop mcp` or `ui` between runs): one
// replayer is closed while the next is being made, five times; prints how many replays failed.
// Run by tests/e2e/replay-turns.test.ts against the build (dist/).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { HistoryReplayer } from '../../dist/worker/replay-events.js';

const [file, workflowId] = process.argv.slice(2);
const history = historyFromJSON(JSON.parse(readFileSync(join(process.cwd(), file), 'utf8')));
const errors = [];
for (let i = 0; i < 5; i++) {
  const first = new HistoryReplayer();
  const replayed = await first.replay(history, workflowId);
  if (replayed.error) errors.push(String(replayed.error.message));
  const next = new HistoryReplayer();
  const made = next.replay(history, workflowId).catch((error) => ({ error }));
  await first.close();
  const again = await made;
  if (again.error) errors.push(String(again.error.message ?? again.error));
  await next.close();
}
process.stdout.write(`${JSON.stringify({ errors })}\n`);
