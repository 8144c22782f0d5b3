// Prints one closing line, "vitest: N passed, N failed, N skipped", after the
// run ("browser: ..." with the option {label: 'browser'}).
export default class SummaryReporter {
  constructor({ label = 'vitest' } = {}) {
    this.label = label;
  }
  onTestRunEnd(testModules, unhandledErrors) {
    let passed = 0,
      failed = 0,
      skipped = 0;
    for (const mod of testModules) {
      for (const t of mod.children.allTests()) {
        const state = t.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      if (mod.state() === 'failed' && [...mod.children.allTests()].length === 0) failed++; // a file that failed to load
    }
    failed += unhandledErrors.length;
    process.stdout.write(`\n${this.label}: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
