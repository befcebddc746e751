/**
 * Ends the test output with the plain closing line CI reads in any language:
 * `tests: N passed, N failed` (plus `, N skipped` when some were).
 */
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failed += 1;
        else skipped += 1;
      }
    }
    const line = `tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`;
    // At exit, so it is the very last line, after vitest's own summary.
    process.once('exit', () => process.stdout.write(`\n${line}\n`));
  }
}
