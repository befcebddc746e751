/**
 * Ends the test output with the plain closing line CI reads in any language:
 * `tests: N passed, N failed` (plus `, N skipped` when some were, and the files that failed
 * outside any test and the errors no test caught, when there were: a file whose `beforeAll`
 * threw reports its tests as skipped, and the line must not then read as a clean run).
 */
import type { SerializedError } from 'vitest';
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    let brokenFiles = 0;
    for (const module of modules) {
      let failedHere = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failedHere += 1;
        else skipped += 1;
      }
      failed += failedHere;
      if (module.state() === 'failed' && failedHere === 0) brokenFiles += 1;
    }
    const parts = [`tests: ${passed} passed, ${failed} failed`];
    if (skipped) parts.push(`${skipped} skipped`);
    if (brokenFiles) parts.push(`${brokenFiles} ${brokenFiles === 1 ? 'file' : 'files'} failed outside a test`);
    if (unhandledErrors.length) parts.push(`${unhandledErrors.length} unhandled errors`);
    const line = parts.join(', ');
    // At exit, so it is the very last line, after vitest's own summary.
    process.once('exit', () => process.stdout.write(`\n${line}\n`));
  }
}
