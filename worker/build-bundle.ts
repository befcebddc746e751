/**
 * Build step: bundle the workflow code once (`npm run build`), so starting a worker does not
 * spend seconds in webpack on every `ll-loop run`.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { BUILD_STAMP, PACKAGE_ROOT, PREBUILT_BUNDLE } from '../host/paths.js';
import { asciiSource } from './ascii-source.js';

/**
 * The bundle keeps its inline source map (the SDK requires one, and maps workflow stack traces
 * with it) without the sources' text: every worker and replayer holds the map as it read it
 * and again, parsed, in the workflows' V8 context, and the text was two thirds of it (1.4 MB: ours,
 * zod's, the SDK's), for nothing a stack trace shows (it gives file, line and column).
 */
function withoutSourcesContent(bundle: string): string {
  const marker = '//# sourceMappingURL=data:';
  const at = bundle.lastIndexOf(marker);
  const base64At = bundle.indexOf('base64,', at);
  if (at < 0 || base64At < 0) return bundle;
  const map = JSON.parse(Buffer.from(bundle.slice(base64At + 'base64,'.length).trim(), 'base64').toString('utf8')) as {
    sourcesContent?: unknown;
  };
  delete map.sourcesContent;
  const encoded = Buffer.from(JSON.stringify(map), 'utf8').toString('base64');
  return `${bundle.slice(0, at)}${marker}application/json;charset=utf-8;base64,${encoded}\n`;
}

const { code } = await bundleWorkflowCode({
  workflowsPath: join(PACKAGE_ROOT, 'dist', 'workflows', 'index.js'),
  logger: new DefaultLogger('WARN'),
});
mkdirSync(dirname(PREBUILT_BUNDLE), { recursive: true });
// ASCII: the workflows' V8 context keeps the source at one byte per character (ascii-source.ts).
writeFileSync(PREBUILT_BUNDLE, asciiSource(withoutSourcesContent(code)));
console.log(`workflow bundle: ${PREBUILT_BUNDLE} (${(code.length / 1024).toFixed(0)} KiB)`);
// Every build is a new code id: a checkout's worker of an earlier build is replaced (build-info.ts).
writeFileSync(BUILD_STAMP, JSON.stringify({ code_id: randomUUID().slice(0, 8), built_at: new Date().toISOString() }));
