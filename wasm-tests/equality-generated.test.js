// Native and WASM produce identical `info` JSON on every model that
// scripts/gen_fixtures.py wrote into build/fixtures/ (when it exists).
import { expect, it } from 'vitest';
import { generatedFixtures } from '../scripts/list_fixtures.mjs';
import { defineEqualityTests } from './helpers.js';

const files = generatedFixtures(process.env.MEMPLAN_FIXTURES_DIR || undefined);
if (files.length) defineEqualityTests(it, expect, files);
else
  it('generated fixtures exist', () => {
    throw new Error('no model in build/fixtures: run scripts/gen_fixtures.py build/fixtures');
  });
