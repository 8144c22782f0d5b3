// exports.js -- the downloads: plan JSON, table CSV (the table as shown:
// filtered and sorted), the annotated .onnx (`annotate` in the worker: the
// bytes `memplan annotate` writes), the reordered .onnx (`reorder` in the
// order shown: the bytes `memplan reorder` writes), the Netron attachment, and a PNG and an
// SVG button in each chart's head. File names start with the model's name.
import { el } from '../charts/base.js';
import { netronAttachment, toCSV } from '../data/export.js';
import { stringifyExact } from '../data/exact.js';
import { columnsOf } from './table.js';

function download(name, data, type) {
  const blob = data instanceof Blob ? data : new Blob([data], { type });
  const url = URL.createObjectURL(blob);
  const a = el('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A file name stem from a model name: "model" for none, safe characters only, 80 at most. */
export const stem = (name) =>
  (name || 'model')
    .replace(/\.onnx$/i, '')
    .replace(/[^\w.-]+/g, '_')
    .slice(0, 80) || 'model';

export const CHART_NAMES = {
  memory: 'Memory over time',
  timeline: 'Live intervals',
  arena: 'Arena map',
  slots: 'Slot occupancy',
  bands: 'Active memory', // issue 17
  sweep: 'Memory against a dim',
  compare: 'Memory over time, A and B',
};

/** The PNG's title line: "model · batch=1, seq=128 · sr=16000 · Memory over time" (the bound dims and values only). */
export function pngTitle(state, figure) {
  const bound = (o) =>
    Object.entries(o ?? {})
      .filter(([, v]) => v !== '')
      .map(([k, v]) => `${k}=${v}`)
      .join(', ');
  return [state.shownName || state.name, bound(state.dims), bound(state.values), figure].filter(Boolean).join(' · ');
}

/** The name of a NAME=VALUE binding: up to the last '=' (a dim's name may hold '=', its value
 *  never does; the library splits it the same way). The text itself when it has no '='. */
export function bindingName(text) {
  const t = String(text),
    eq = t.lastIndexOf('=');
  return eq > 0 ? t.slice(0, eq) : t;
}

/** The dims and values a request binds ({dims, values}: NAME=VALUE of its --dim and --value pairs), for pngTitle. */
export function bindingsOf(args) {
  const out = { dims: {}, values: {} };
  for (let k = 0; k + 1 < args.length; k++) {
    const into = args[k] === '--dim' ? out.dims : args[k] === '--value' ? out.values : null;
    if (!into) continue;
    const t = String(args[++k]),
      name = bindingName(t);
    if (name !== t) into[name] = t.slice(name.length + 1);
  }
  return out;
}

/**
 * The export buttons, appended to `container`; PNG/SVG buttons added to each
 * of `charts` ({key: chart}). `titles` ({key: () => text}): a chart's own PNG
 * title line where pngTitle(state, its name) would not say what it shows (the
 * sweep: its dim is not the plan's; compare: two option sets).
 */
export function createExports(container, ctl, charts, titles = {}) {
  const base = () => stem(ctl.state.name);
  const button = (key, label, className, fn) => {
    const b = el('button', className, label);
    b.type = 'button';
    b.dataset.export = key;
    b.addEventListener('click', fn);
    return b;
  };
  for (const [key, c] of Object.entries(charts)) {
    const png = button(`${key}-png`, 'PNG', 'mpv-btn mpv-small', async () =>
      download(
        `${base()}-${key}.png`,
        await c.toPNG({ title: titles[key]?.() ?? pngTitle(ctl.state, CHART_NAMES[key] ?? key) }),
        'image/png',
      ),
    );
    const svg = button(`${key}-svg`, 'SVG', 'mpv-btn mpv-small', () =>
      download(`${base()}-${key}.svg`, c.toSVG(), 'image/svg+xml'),
    );
    // Every chart has a PNG and an SVG button: their names say which chart.
    png.setAttribute('aria-label', `${CHART_NAMES[key] ?? key} as PNG`);
    svg.setAttribute('aria-label', `${CHART_NAMES[key] ?? key} as SVG`);
    c.addTools(png, svg);
  }
  // The plan as the CLI writes it, and (a model open) its provenance last:
  // the model's name, size and sha256, the options and the bindings.
  const planJson = async () => {
    const { plan } = ctl.state;
    if (!plan) return;
    const provenance = await ctl.provenance();
    const doc = provenance ? { ...plan, provenance } : plan;
    download(`${base()}.plan.json`, stringifyExact(doc, 1), 'application/json');
  };
  const tableCsv = () => {
    const { which, rows } = ctl.tableView();
    download(
      `${base()}.${which}.csv`,
      toCSV(
        rows,
        columnsOf(which).map((c) => ({ key: c.key, label: c.label })),
      ),
      'text/csv',
    );
  };
  const annotated = async () => {
    const bytes = await ctl.annotate();
    if (bytes) download(`${base()}.memplan.onnx`, bytes, 'application/octet-stream');
  };
  const netron = () => {
    const { m, name, info } = ctl.state;
    if (!m) return;
    const doc = netronAttachment(m, {
      values: ctl.rows('values'),
      nodes: ctl.rows('nodes'),
      producer: `onnx-memplan ${ctl.version}`,
      model: name,
      graph: info?.graph_name ?? '',
    });
    download(`${base()}.memplan.netron.json`, stringifyExact(doc, 1), 'application/json');
  };
  const traceJson = async () => {
    const bytes = await ctl.trace();
    if (bytes) download(`${base()}.trace.json`, bytes, 'application/json');
  };
  const reordered = async () => {
    const bytes = await ctl.reorder();
    if (bytes) download(`${base()}.reordered.onnx`, bytes, 'application/octet-stream');
  };
  const annotatedBtn = button('annotated-onnx', 'Annotated .onnx', 'mpv-btn', annotated);
  const reorderedBtn = button('reordered-onnx', 'Reordered .onnx', 'mpv-btn', reordered);
  const traceBtn = button('trace-json', 'Trace (.json)', 'mpv-btn', traceJson);
  const netronBtn = button('netron', 'Netron attachment', 'mpv-btn', netron);
  // How to use it: Netron has no "open attachment" command; the file is dropped on the open model.
  const netronNote = el(
    'span',
    'mpv-export-note muted',
    'Netron attachment: open the model in Netron (netron.app or the app), then drop this .json on it: ' +
      'the plan shows in the sidebar of the graph, each value and each named node.',
  );
  netronNote.id = `mpv-netron-note-${Math.random().toString(36).slice(2, 8)}`;
  netronNote.dataset.role = 'netron-note';
  netronBtn.setAttribute('aria-describedby', netronNote.id);
  container.append(
    button('plan-json', 'Plan JSON', 'mpv-btn', planJson),
    button('table-csv', 'Table CSV', 'mpv-btn', tableCsv),
    annotatedBtn,
    reorderedBtn,
    traceBtn,
    netronBtn,
    netronNote,
  );
  // Annotating needs the model open in the worker: not a saved plan, not after a cancel.
  const syncAnnotate = ({ hasModel, plan }) => {
    annotatedBtn.disabled = !hasModel;
    annotatedBtn.title = hasModel
      ? 'The model with the plan written into its metadata_props (memplan annotate)'
      : 'Needs the model itself: open the .onnx file';
    // The trace needs the model too, and a planned plan (a deferred one has no positions in bytes).
    const planned = plan?.status === 'planned';
    traceBtn.disabled = !hasModel || !planned;
    traceBtn.title = !hasModel
      ? 'Needs the model itself: open the .onnx file'
      : !planned
        ? 'A deferred plan has no trace: bind its dims first'
        : 'The plan as a Chrome/Perfetto trace (memplan plan --trace): open it in ui.perfetto.dev or chrome://tracing';
  };
  // The reordered model: the nodes in the order shown (memplan reorder), so not in the file order.
  const syncReorder = ({ hasModel, order, float16Cpu }) => {
    reorderedBtn.disabled = !hasModel || order === 'file' || float16Cpu === true;
    reorderedBtn.title = !hasModel
      ? 'Needs the model itself: open the .onnx file'
      : float16Cpu === true // the order shown is of the graph ONNX Runtime makes, not the file's
        ? 'The order shown is of the graph ONNX Runtime runs for float16 tensors: untick “float16 on the CPU” to write the file in an order'
        : order === 'file'
          ? 'Choose another order than "file" to write the model with its nodes in that order'
          : order === 'onnxruntime'
            ? 'The model with its nodes written so that ONNX Runtime, which runs its own order, runs them with the lowest peak found (memplan reorder --order onnxruntime)'
            : "The model with its nodes, and its bodies' nodes, in the order shown (memplan reorder), for a runtime that " +
              "runs the file's order: ONNX Runtime runs its own (the order “ONNX Runtime's”), so plan the new file in that order first";
  };
  ctl.on('info', syncAnnotate);
  ctl.on('status', syncAnnotate);
  ctl.on('applied', syncAnnotate);
  for (const type of ['info', 'status', 'options']) ctl.on(type, syncReorder);
  syncReorder(ctl.state);
}
