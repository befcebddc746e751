/**
 * Which project an embedded dev server belongs to. The server itself keeps the answer: when
 * ll-loop starts one, it writes the data directory and the Web UI address into the namespace's
 * `data` (DescribeNamespace returns them to anyone who connects, whatever their project or user).
 * A server without them was started by something else (by hand, another tool, ll-loop before 0.4).
 */
import type { NamespaceAdmin } from './namespace-admin.js';

const DATA_DIR_KEY = 'll-loop.data-dir';
const UI_KEY = 'll-loop.ui';

/** Where a server keeps its data and shows its Web UI, as ll-loop recorded when it started it. */
export interface ServerHome {
  dataDir: string;
  uiUrl?: string;
}

/** Record `home` in the server's namespace (its data map; other keys are kept). */
export async function recordServerHome(admin: NamespaceAdmin, namespace: string, home: ServerHome): Promise<void> {
  await admin.updateNamespaceData(namespace, {
    [DATA_DIR_KEY]: home.dataDir,
    ...(home.uiUrl === undefined ? {} : { [UI_KEY]: home.uiUrl }),
  });
}

/** What the server says about its home; undefined when ll-loop did not record one. */
export async function readServerHome(admin: NamespaceAdmin, namespace: string): Promise<ServerHome | undefined> {
  const data = await admin.namespaceData(namespace);
  const dataDir = data[DATA_DIR_KEY];
  if (!dataDir) return undefined;
  const uiUrl = data[UI_KEY];
  return { dataDir, ...(uiUrl ? { uiUrl } : {}) };
}

/**
 * The one-line note for a project whose runs would go to a server of another home (`home`
 * undefined: unknown). `ours`: the data directory this project's own server would use.
 */
export function foreignServerNote(address: string, home: ServerHome | undefined, assumedUi: string): string {
  const where = home
    ? `another project's server answers on ${address} (data ${home.dataDir}, Web UI ${home.uiUrl ?? assumedUi})`
    : `a Temporal server that ll-loop did not start answers on ${address} (its data directory is unknown; Web UI perhaps ${assumedUi})`;
  return `note: ${where}: this project's runs go there too; for a server of its own, set LL_TEMPORAL_PORT (and LL_TEMPORAL_UI_PORT) to free ports\n`;
}
