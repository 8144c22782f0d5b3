// Vitest: the browser tests of the built page (web/dist) in Debian's Chromium
// through playwright-core, one file per area. Run from the repository root:
// npm run test:browser (after npm run build:web and the native build: the
// CLI, build/native/memplan or $MEMPLAN_CLI, is the reference for every
// figure). global-setup.js serves web/dist on 127.0.0.1 and starts one
// Chromium that every file connects to. Results: the console, JUnit XML in
// build/test-logs/browser.junit.xml, screenshots in test-artifacts/.
import { defineConfig } from 'vitest/config';
import { ROOT } from '../../scripts/prepare_web.mjs';

export default defineConfig({
  root: ROOT,
  test: {
    include: ['wasm-tests/browser/*.test.js'],
    environment: 'node',
    globalSetup: ['wasm-tests/browser/global-setup.js'],
    // One file at a time (2 shared cores, one Chromium), all in one worker:
    // playwright-core and the helpers are imported once, not once per file.
    fileParallelism: false,
    isolate: false,
    testTimeout: 180_000,
    hookTimeout: 120_000,
    reporters: [
      'default',
      ['junit', { suiteName: 'browser' }],
      ['./wasm-tests/summary-reporter.js', { label: 'browser' }],
    ],
    outputFile: { junit: 'build/test-logs/browser.junit.xml' },
  },
});
