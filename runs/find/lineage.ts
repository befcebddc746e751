/**
 * A run's lineage through `ll-loop rerun`: the run and event it was forked from (its memo's
 * `forked_from`), and the reruns forked from it (`<id>-f1`, `-f2`, … while they exist).
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';

export interface Lineage {
  /** `<run>@<event>` this run started from. */
  forked_from?: string;
  /** Runs started from this one, with the event each started from. */
  reruns?: Array<{ id: string; forked_from?: string }>;
}

async function memoOf(client: Client, id: string): Promise<Record<string, unknown> | undefined> {
  try {
    return ((await client.workflow.getHandle(id).describe()).memo ?? {}) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

/** The lineage of run `id` (empty when it has none). */
export async function lineageOf(client: Client, id: string): Promise<Lineage> {
  const own = await memoOf(client, id);
  const out: Lineage = {};
  if (typeof own?.forked_from === 'string') out.forked_from = own.forked_from;
  const reruns: NonNullable<Lineage['reruns']> = [];
  for (let n = 1; ; n += 1) {
    const memo = await memoOf(client, `${id}-f${n}`);
    if (memo === undefined) break;
    reruns.push({
      id: `${id}-f${n}`,
      ...(typeof memo.forked_from === 'string' ? { forked_from: memo.forked_from } : {}),
    });
  }
  if (reruns.length) out.reruns = reruns;
  return out;
}
