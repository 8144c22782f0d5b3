// Once per run: check what the tests need (the built page, the native CLI,
// Chromium), serve web/dist on 127.0.0.1 and launch one headless Chromium;
// the test files connect to it (harness.js). Provided to them: baseURL,
// wsEndpoint.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/serve.mjs';
import { ROOT } from '../../scripts/prepare_web.mjs';
import { ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, CLI, DIST } from './paths.js';

export default async function setup(project) {
  for (const [what, p] of [
    ['web/dist (npm run build:web)', join(DIST, 'index.html')],
    ['native CLI', CLI],
    ['Chromium', CHROMIUM],
  ]) {
    if (!existsSync(p)) throw new Error(`browser tests: ${what} not found at ${p}`);
  }
  mkdirSync(ARTIFACTS, { recursive: true });
  mkdirSync(join(ROOT, 'build', 'test-logs'), { recursive: true });
  const { server, url } = await serve(DIST, 0);
  const browser = await chromium.launchServer({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  project.provide('baseURL', url);
  project.provide('wsEndpoint', browser.wsEndpoint());
  console.log(`browser: ${url} with ${CHROMIUM}`);
  return async () => {
    await browser.close();
    server.close();
  };
}
