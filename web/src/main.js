// main.js -- the demo page: the visualizer mounted with embed.js, opened on
// the example, a picked or dropped file, or ?url=.
import './style.css';
import './app/view.css'; // the visualizer's styles (embed.js imports none)
import { mount } from './embed.js';
import { EXAMPLE } from './example.js';
import { findValue, readHash, writeHash } from './app/urlstate.js';

const $ = (sel) => document.querySelector(sel);
// The drop overlay's words (index.html starts with the first).
const DROP_OPEN = 'Drop an .onnx model (or a saved plan .json) to open it';
const DROP_COMPARE = 'Drop an .onnx model to compare it with the plan shown (as model B)';
// ---- the link's state (urlstate.js): the options before the first plan ----
const linked = readHash(location.hash);
const view = mount($('#app'), {
  infoOpen: false,
  strategy: linked.strategy,
  align: linked.align,
  inplace: linked.inplace,
  shareKv: linked.shareKv,
  fuseQdq: linked.fuseQdq,
  workspace: linked.workspace,
  float16Cpu: linked.float16Cpu,
  order: linked.order,
});
view.on('state', (s) => {
  document.body.dataset.state = s;
  // The tab names the model shown (or being opened).
  const name = view.state?.name;
  document.title = name ? `${name} — onnx-memplan` : 'onnx-memplan';
});
window.memplanView = view; // for the console and the browser tests

async function start() {
  try {
    await view.ready;
  } catch (e) {
    const box = $('#fatal');
    box.textContent = `Could not start the WebAssembly module: ${e.message}`;
    box.hidden = false;
    document.body.dataset.state = 'error';
    return;
  }
  $('#version').textContent = `v${view.version}`;
  // An .onnx model, or a saved plan (`memplan plan --json` output, .json).
  const openFile = (f) => {
    if (/\.json$/i.test(f.name))
      f.text()
        .then((t) => view.setPlan(t, f.name))
        .catch((e) => {
          $('#fatal').textContent = `${f.name}: ${e.message}`;
          $('#fatal').hidden = false;
        });
    else view.setModel(f, f.name).catch(() => {}); // the File itself (the worker reads the graph, not the weights); errors are shown
  };
  $('#open').addEventListener('click', () => $('#file').click()); // a button: reachable with Tab, Enter and Space
  $('#file').addEventListener('change', (ev) => {
    const f = ev.target.files?.[0];
    if (f) {
      $('#fatal').hidden = true;
      openFile(f);
    }
    ev.target.value = '';
  });

  const drop = $('#drop');
  let depth = 0;
  const hasFiles = (ev) => [...(ev.dataTransfer?.types ?? [])].includes('Files');
  // The overlay says what the drop will do: over the compare panel the file is
  // model B (compare.js takes it there), anywhere else the model to open.
  const syncDrop = (ev) => {
    const text = ev.target?.closest?.('.mpv-compare') ? DROP_COMPARE : DROP_OPEN;
    if (drop.textContent !== text) drop.textContent = text;
  };
  window.addEventListener('dragenter', (ev) => {
    if (hasFiles(ev)) {
      depth++;
      syncDrop(ev);
      drop.hidden = false;
    }
  });
  window.addEventListener('dragleave', () => {
    if (--depth <= 0) {
      depth = 0;
      drop.hidden = true;
    }
  });
  window.addEventListener('dragover', (ev) => {
    if (!hasFiles(ev)) return;
    ev.preventDefault();
    syncDrop(ev); // the pointer may have moved onto or off the compare panel
  });
  // Hidden in the capture phase: a drop the compare panel takes (and stops) ends the drag too.
  window.addEventListener(
    'drop',
    () => {
      depth = 0;
      drop.hidden = true;
    },
    true,
  );
  window.addEventListener('drop', (ev) => {
    ev.preventDefault();
    const f = ev.dataTransfer?.files?.[0];
    if (f) openFile(f);
  });

  const url = new URLSearchParams(location.search).get('url');
  // ---- the link's state: dims and values of the first plan, then the selection ----
  const given = Object.keys(linked.dims).length || Object.keys(linked.values).length;
  const preset = given ? { dims: linked.dims, values: linked.values } : url ? undefined : EXAMPLE.preset;
  const first = url
    ? view.setModel(url, undefined, preset)
    : view.setModel(new URL('models/example.onnx', document.baseURI).href, EXAMPLE.name, preset);
  first
    .then(async () => {
      // A selection inside a control-flow body: that body opened first, then the value
      // selected in it (a link without `body` finds the one body holding the value).
      const steps = linked.body.length
        ? linked.body
        : linked.select !== null && view.plan
          ? findValue(view.plan, linked.select)
          : null;
      if (steps?.length) await view.openBody(steps);
      if (linked.select !== null) view.select(linked.select);
      fetchable = true;
      syncHash();
    })
    .catch(() => {
      fetchable = false; // the link stays as given
    });
}

// ---- the URL follows the view (a model the page fetched: the example or ?url=) ----
// A picked or dropped file cannot be fetched again: its state leaves the URL.
// Untouched until the first open settles ('pending'), so a link's selection
// is not written away by the plans made before it is applied.
let fetchable = 'pending';
function syncHash() {
  if (fetchable === 'pending') return;
  const s = view.state;
  const hash = fetchable && s?.source === 'model' ? `#${writeHash(s)}` : '';
  if (hash !== location.hash) history.replaceState(null, '', `${location.pathname}${location.search}${hash}`);
}
// After each plan ('ready'): not 'plan', whose listeners get the plan frozen (0.4 s on a 200k-value plan).
view.on('state', (phase) => phase === 'ready' && syncHash());
view.on('select', () => syncHash());
view.on('load', () => {
  if (fetchable !== 'pending') fetchable = false; // another model: a file the user gave
});

start();
