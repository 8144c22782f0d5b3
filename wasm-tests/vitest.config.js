// Vitest: the WASM build through the JS wrapper, checked against the native CLI.
// Run from the repository root: npm run test:wasm (after building build/wasm
// and build/native, as `make test` does).
import { defineConfig } from 'vitest/config';
import { ROOT, syncWasm } from '../scripts/prepare_web.mjs';

syncWasm(); // build/wasm/memplan.{mjs,wasm} -> web/src/wasm/ (imported by the wrapper)

export default defineConfig({
  root: ROOT,
  test: {
    include: ['wasm-tests/**/*.test.js'],
    exclude: ['wasm-tests/browser/**', 'node_modules/**'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', './wasm-tests/summary-reporter.js'],
  },
});
