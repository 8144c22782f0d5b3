// Native and WASM produce identical `info` JSON on every npm fixture model.
import { expect, it } from 'vitest';
import { npmFixtures } from '../scripts/list_fixtures.mjs';
import { defineEqualityTests } from './helpers.js';

defineEqualityTests(it, expect, npmFixtures());
