/**
 * The workflow bundle as workers and replayers should hold it. Every worker and replayer keeps
 * the bundle's source in the workflows' V8 context and parses its inline source map there, so
 * what is dropped here is memory and CPU saved at every worker start and every replay.
 *
 * - The source map keeps its mappings (the SDK requires an inline map, and maps workflow stack
 *   traces with it) without the sources' text: that text was two thirds of the map (1.4 MB:
 *   ours, zod's, the SDK's), for nothing a stack trace shows (it gives file, line and column).
 * - The code is ASCII (ascii-source.ts): V8 then keeps it at one byte per character.
 */
import { asciiSource } from './ascii-source.js';

export function slimBundle(code: string): string {
  return asciiSource(withoutSourcesContent(code));
}

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
