/** Builds Jaeger once (cached in `.cache/`) before the trace tier's files start. */
import { buildJaeger } from '../support/jaeger.js';

export default function setup(): void {
  buildJaeger((m) => process.stderr.write(`[jaeger] ${m}\n`));
}
