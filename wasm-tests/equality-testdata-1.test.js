// Native and WASM produce identical `info` JSON on ONNX's backend test models
// (Debian libonnx-testdata), half 1 of 2 so the two halves run in parallel.
import { expect, it } from 'vitest';
import { testdataFixtures } from '../scripts/list_fixtures.mjs';
import { defineEqualityTests } from './helpers.js';

const files = testdataFixtures().filter((_f, i) => i % 2 === 1);
if (files.length) defineEqualityTests(it, expect, files);
else
  it('libonnx-testdata is installed', () => {
    throw new Error('no model in libonnx-testdata: scripts/setup.sh installs it');
  });
