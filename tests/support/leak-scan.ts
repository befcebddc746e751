/**
 * Where a secret could leak, as text to search: every file under a directory, and a run's whole
 * Temporal history with every payload's bytes decoded (payload data are bytes, which
 * JSON.stringify would show as numbers, hiding a secret from a plain search).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';

/** Every regular file under `dir`, recursively (a socket, such as the worker's start socket, holds no data). */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    const stat = statSync(path);
    if (stat.isDirectory()) return filesUnder(path);
    return stat.isFile() ? [path] : [];
  });
}

/** The run's whole history as text: every string, and every payload's bytes as UTF-8. */
export async function historyText(client: Client, workflowId: string): Promise<string> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const parts: string[] = [];
  const visit = (v: unknown): void => {
    if (typeof v === 'string') parts.push(v);
    else if (v instanceof Uint8Array) parts.push(Buffer.from(v).toString('utf8'));
    else if (Array.isArray(v)) v.forEach(visit);
    else if (typeof v === 'object' && v !== null) Object.values(v).forEach(visit);
  };
  visit(history);
  return parts.join('\n');
}
