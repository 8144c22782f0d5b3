// main.js -- the page: opens a model (example, ?url=, file picker, drag and
// drop) in the memplan worker and shows its info.
import './style.css';
import { connectMemplan } from './api/memplan-client.js';
import { formatBytes, renderInfo } from './app/info-view.js';

const $ = (sel) => document.querySelector(sel);
const status = $('#status');
const errorBox = $('#error');
const view = $('#view');

let current = null; // the open model
let generation = 0; // drops results of loads superseded by a newer one

function showError(message) {
  errorBox.textContent = message;
  errorBox.hidden = false;
  status.textContent = '';
  document.body.dataset.state = 'error';
}

async function openBytes(mp, name, bytesPromise) {
  const gen = ++generation;
  errorBox.hidden = true;
  document.body.dataset.state = 'loading';
  status.textContent = `Loading ${name}…`;
  try {
    const bytes = await bytesPromise;
    const t0 = performance.now();
    const size = bytes.byteLength;
    const model = await mp.open(bytes);
    if (gen !== generation) { model.close(); return; }
    if (current) current.close();
    current = model;
    renderInfo(document, name, model.info);
    view.hidden = false;
    status.textContent = `${name}: ${formatBytes(size)}, analysed in ${Math.round(performance.now() - t0)} ms`;
    document.body.dataset.state = 'ready';
  } catch (e) {
    if (gen === generation) showError(`${name}: ${e.message}`);
  }
}

async function fetchBytes(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`HTTP ${res.status} fetching ${url}`);
  return new Uint8Array(await res.arrayBuffer());
}

const baseName = (url) => decodeURIComponent(new URL(url, location.href).pathname.split('/').pop() || url);

async function start() {
  let mp;
  try {
    mp = await connectMemplan();
  } catch (e) {
    showError(`Could not start the WebAssembly module: ${e.message}`);
    return;
  }
  $('#version').textContent = `v${mp.version}`;

  $('#file').addEventListener('change', (ev) => {
    const f = ev.target.files?.[0];
    if (f) openBytes(mp, f.name, f.arrayBuffer());
    ev.target.value = '';
  });

  const drop = $('#drop');
  let depth = 0;
  const hasFiles = (ev) => [...(ev.dataTransfer?.types ?? [])].includes('Files');
  window.addEventListener('dragenter', (ev) => { if (hasFiles(ev)) { depth++; drop.hidden = false; } });
  window.addEventListener('dragleave', () => { if (--depth <= 0) { depth = 0; drop.hidden = true; } });
  window.addEventListener('dragover', (ev) => { if (hasFiles(ev)) ev.preventDefault(); });
  window.addEventListener('drop', (ev) => {
    ev.preventDefault();
    depth = 0;
    drop.hidden = true;
    const f = ev.dataTransfer?.files?.[0];
    if (f) openBytes(mp, f.name, f.arrayBuffer());
  });

  const url = new URLSearchParams(location.search).get('url');
  if (url) openBytes(mp, baseName(url), fetchBytes(url));
  else openBytes(mp, 'example.onnx (Silero VAD v5)', fetchBytes(new URL('models/example.onnx', document.baseURI)));
}

start();
