// exports.js -- the downloads: plan JSON, table CSV (the table as shown:
// filtered and sorted), the annotated .onnx (`annotate` in the worker: the
// bytes `memplan annotate` writes), the Netron attachment, and a PNG and an
// SVG button in each chart's head. File names start with the model's name.
import { el } from '../charts/base.js';
import { netronAttachment, toCSV } from '../data/export.js';
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

const CHART_NAMES = {
  memory: 'Memory over time',
  timeline: 'Live intervals',
  arena: 'Arena map',
  slots: 'Slot occupancy',
  bands: 'Active memory', // issue 17
};

/** The export buttons, appended to `container`; PNG/SVG buttons added to each of `charts` ({key: chart}). */
export function createExports(container, ctl, charts) {
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
      download(`${base()}-${key}.png`, await c.toPNG(), 'image/png'),
    );
    const svg = button(`${key}-svg`, 'SVG', 'mpv-btn mpv-small', () =>
      download(`${base()}-${key}.svg`, c.toSVG(), 'image/svg+xml'),
    );
    // Every chart has a PNG and an SVG button: their names say which chart.
    png.setAttribute('aria-label', `${CHART_NAMES[key] ?? key} as PNG`);
    svg.setAttribute('aria-label', `${CHART_NAMES[key] ?? key} as SVG`);
    c.addTools(png, svg);
  }
  const planJson = () => {
    const { plan } = ctl.state;
    if (plan) download(`${base()}.plan.json`, JSON.stringify(plan, null, 1), 'application/json');
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
    download(`${base()}.memplan.netron.json`, JSON.stringify(doc, null, 1), 'application/json');
  };
  const annotatedBtn = button('annotated-onnx', 'Annotated .onnx', 'mpv-btn', annotated);
  container.append(
    button('plan-json', 'Plan JSON', 'mpv-btn', planJson),
    button('table-csv', 'Table CSV', 'mpv-btn', tableCsv),
    annotatedBtn,
    button('netron', 'Netron attachment', 'mpv-btn', netron),
  );
  // Annotating needs the model open in the worker: not a saved plan, not after a cancel.
  const syncAnnotate = ({ hasModel }) => {
    annotatedBtn.disabled = !hasModel;
    annotatedBtn.title = hasModel
      ? 'The model with the plan written into its metadata_props (memplan annotate)'
      : 'Needs the model itself: open the .onnx file';
  };
  ctl.on('info', syncAnnotate);
  ctl.on('status', syncAnnotate);
}
