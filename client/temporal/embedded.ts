/**
 * Where the embedded dev server lives for a project: data under `.loops/.temporal/`, gRPC on
 * 7233 and the Web UI on 8233 (Temporal's usual ports), each overridable by environment.
 */
import { join } from 'node:path';

export function embeddedServerOptions(cwd: string, env: NodeJS.ProcessEnv = process.env): { dataDir: string; port: number; uiPort: number } {
  return {
    dataDir: env.LL_TEMPORAL_DATA_DIR ?? join(cwd, '.loops', '.temporal'),
    port: Number(env.LL_TEMPORAL_PORT ?? 7233),
    uiPort: Number(env.LL_TEMPORAL_UI_PORT ?? 8233),
  };
}
