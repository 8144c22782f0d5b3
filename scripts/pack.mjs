#!/usr/bin/env node
// pack.mjs -- the npm package, from the same sources as the page and the CLI.
//
//   node scripts/pack.mjs [--out build/npm] [--no-tarball]      (npm run pack:lib)
//
// Stages build/npm/ (never committed) and runs `npm pack` there, which writes
// build/onnx-memplan-VERSION.tgz. The package is the ES modules of web/src as
// they are (no bundling, no hashed names; 'd3' stays a bare import and the
// only dependency), the WebAssembly module (build/wasm, or MEMPLAN_WASM_DIR)
// and the native CLI built for Node:
//
//   onnx-memplan             createMemplan (api/memplan-core.js + .d.ts; memplan.wasm beside the factory)
//   onnx-memplan/worker      connectMemplan, the Web Worker client (api/memplan-client.js, api/worker.js)
//   onnx-memplan/view        mount and <memplan-view> (embed.js and what it imports)
//   onnx-memplan/view.css    the view's styles
//   onnx-memplan/d3-global   'd3' for pages without a bundler (scripts/npm/d3-global.js)
//   bin onnx-memplan         the CLI (scripts/npm/onnx-memplan.js over cli/memplan-node.cjs)
//
// The files shipped are the ones the entry points reach through their
// relative imports and `new URL('...', import.meta.url)` references, so a
// test, a demo page or a model never ends up in the package. A bare import
// other than 'd3', or a d3 name that d3-global.js does not export, stops the
// pack.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const WEB = join(ROOT, 'web', 'src');
const NPM_SRC = join(ROOT, 'scripts', 'npm');
const WASM_DIR = resolve(ROOT, process.env.MEMPLAN_WASM_DIR || 'build/wasm');

/** The module files a package entry starts from (paths under web/src). */
const ENTRIES = ['api/memplan-core.js', 'api/memplan-client.js', 'embed.js'];
/** Files shipped beside the entries that no import names. */
const EXTRA_WEB = ['api/memplan-core.d.ts', 'api/memplan-client.d.ts', 'embed.d.ts', 'app/view.css', 'app/views.css'];

function fail(msg) {
  console.error(`pack: ${msg}`);
  process.exit(1);
}

// The specifiers one module names: static imports and re-exports, bare
// `import 'x'`, and `new URL('x', import.meta.url)` (the worker, the .wasm).
function references(text) {
  const out = [];
  text = withoutComments(text);
  const patterns = [
    /\bimport\s[^'"]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bexport\s[^'"]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /new URL\(\s*['"]([^'"]+)['"]\s*,\s*import\.meta\.url\s*\)/g,
  ];
  for (const re of patterns) for (const m of text.matchAll(re)) out.push(m[1]);
  return out;
}

// The text without its comment lines (`// ...`, and ` * ...` inside a JSDoc
// block), which may quote an import that is not there.
const withoutComments = (text) =>
  text
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\/\*|\*)/.test(line))
    .join('\n');

// The names a module imports from 'd3' (import { a, b as c } from 'd3').
function d3Names(text) {
  const names = [];
  text = withoutComments(text);
  for (const m of text.matchAll(/\bimport\s*\{([^}]*)\}\s*from\s*['"]d3['"]/g))
    for (const part of m[1].split(',')) if (part.trim()) names.push(part.trim().split(/\s+as\s+/)[0]);
  if (/\bimport\s*\*\s*as\s+\w+\s+from\s*['"]d3['"]/.test(text) || /\bimport\s+\w+\s*(,|from)\s*['"]?d3/.test(text))
    fail('a module imports all of d3: import the names it uses, so d3-global.js can provide them');
  return names;
}

// Where a web/src path comes from: the WASM build for wasm/ (web/src/wasm is
// only a copy that prepare_web.mjs keeps), web/src for the rest.
const sourceOf = (rel) => (rel.startsWith('wasm/') ? join(WASM_DIR, rel.slice(5)) : join(WEB, rel));

// Every file the entries reach, as paths under web/src; the d3 names used.
function reachable() {
  const seen = new Set();
  const used = new Set();
  const todo = [...ENTRIES];
  while (todo.length) {
    const rel = todo.pop();
    if (seen.has(rel)) continue;
    seen.add(rel);
    const src = sourceOf(rel);
    if (!existsSync(src)) fail(`${src} is missing (${rel}; build the WASM first: build/wasm)`);
    if (!/\.(m?js)$/.test(rel) || rel.startsWith('wasm/')) continue; // the Emscripten factory imports nothing
    const text = readFileSync(src, 'utf8');
    for (const n of d3Names(text)) used.add(n);
    for (const spec of references(text)) {
      if (spec === 'd3') continue;
      if (!spec.startsWith('.')) fail(`${rel} imports '${spec}': the package's only dependency is d3`);
      const target = relative(WEB, resolve(dirname(join(WEB, rel)), spec));
      if (target.startsWith('..')) fail(`${rel} reaches ${spec}, outside web/src`);
      todo.push(target);
    }
  }
  return { files: [...seen].sort(), used };
}

// d3-global.js must export every d3 name the shipped modules import.
function checkD3Global(used) {
  const text = readFileSync(join(NPM_SRC, 'd3-global.js'), 'utf8');
  const m = text.match(/export const \{([^}]*)\} = d3;/);
  if (!m) fail('scripts/npm/d3-global.js has no `export const { ... } = d3;` line');
  const have = new Set(m[1].split(',').map((s) => s.trim()));
  const missing = [...used].filter((n) => !have.has(n)).sort();
  if (missing.length) fail(`scripts/npm/d3-global.js does not export ${missing.join(', ')} (imported from 'd3')`);
}

function copy(src, dest) {
  mkdirSync(dirname(dest), { recursive: true });
  copyFileSync(src, dest);
}

function packageJson(root) {
  const d3 = root.dependencies?.d3;
  if (!d3) fail("the root package.json has no dependency 'd3'");
  return {
    name: 'onnx-memplan',
    version: root.version,
    description:
      'How much memory an ONNX model needs while it runs, and why: the planner (WebAssembly), its CLI and a D3 view',
    type: 'module',
    main: './api/memplan-core.js',
    types: './api/memplan-core.d.ts',
    exports: {
      '.': { types: './api/memplan-core.d.ts', default: './api/memplan-core.js' },
      './worker': { types: './api/memplan-client.d.ts', default: './api/memplan-client.js' },
      './view': { types: './embed.d.ts', default: './embed.js' },
      './view.css': './app/view.css',
      './d3-global': './d3-global.js',
      './memplan.wasm': './wasm/memplan.wasm',
      './package.json': './package.json',
    },
    bin: { 'onnx-memplan': './bin/onnx-memplan.js' },
    engines: { node: '>=18' },
    keywords: ['onnx', 'memory', 'planner', 'webassembly', 'arena', 'd3'],
    sideEffects: ['./embed.js', './app/view.css', './app/views.css'],
    dependencies: { d3 },
  };
}

// The package's README: the root README's quick-start section (between the
// npm-readme markers), so the examples users read are the ones the tests run.
function packageReadme() {
  const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const m = text.match(/<!-- npm-readme:begin -->\n([\s\S]*?)<!-- npm-readme:end -->/);
  if (!m) fail('README.md has no <!-- npm-readme:begin --> ... <!-- npm-readme:end --> section');
  return (
    '# onnx-memplan\n\nHow much memory does an ONNX model need while it runs, and why? The planner of\n' +
    'onnx-memplan (C11, compiled to WebAssembly), its command line for Node and its D3 view.\n\n' +
    m[1]
  );
}

function main() {
  const args = process.argv.slice(2);
  const outAt = args.indexOf('--out');
  const out = resolve(ROOT, outAt >= 0 ? args[outAt + 1] : 'build/npm');
  const tarball = !args.includes('--no-tarball');
  const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

  const { files, used } = reachable();
  checkD3Global(used);
  rmSync(out, { recursive: true, force: true });
  for (const rel of [...files, ...EXTRA_WEB]) copy(sourceOf(rel), join(out, rel));
  copy(join(NPM_SRC, 'd3-global.js'), join(out, 'd3-global.js'));
  copy(join(NPM_SRC, 'onnx-memplan.js'), join(out, 'bin', 'onnx-memplan.js'));
  // The CLI: CommonJS (Emscripten's Node loader), hence .cjs in a "type": "module" package.
  copy(join(WASM_DIR, 'memplan-node.js'), join(out, 'cli', 'memplan-node.cjs'));
  copy(join(WASM_DIR, 'memplan-node.wasm'), join(out, 'cli', 'memplan-node.wasm'));
  writeFileSync(join(out, 'package.json'), JSON.stringify(packageJson(root), null, 2) + '\n');
  writeFileSync(join(out, 'README.md'), packageReadme());
  console.log(`pack: ${out} (${files.length + EXTRA_WEB.length + 6} files)`);
  if (!tarball) return;
  const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', dirname(out)], { cwd: out })
    .toString()
    .trim()
    .split('\n')
    .pop();
  console.log(`pack: ${join(dirname(out), name)}`);
}

main();
