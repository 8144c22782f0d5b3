// order.js -- the execution order on the page (issue 20): the "order" control
// (file; ONNX Runtime's, the order it runs the nodes in, `plan --order
// onnxruntime`; or best: the lowest peak the schedulers find, `plan --order best`)
// and, under the figures, the line with both orders' peaks and the saving for
// the graph shown (a body has its own order). The charts and tables need
// nothing more: the plan they draw is already in the order chosen. The
// "Reordered .onnx" export is in exports.js.
import { el } from '../charts/base.js';
import { formatBytes, formatInt } from '../data/format.js';
import { orderFigures } from '../data/order.js';
import { ORDERS } from './controller.js';

const LABELS = { file: 'file', onnxruntime: "ONNX Runtime's", best: 'best (lowest peak)' };

/** The order select for the controls row: {el, sync(state)}. */
export function createOrderControl(ctl) {
  const sel = el('select', 'mpv-order');
  for (const o of ORDERS) {
    const opt = el('option', '', LABELS[o]);
    opt.value = o;
    sel.append(opt);
  }
  sel.addEventListener('change', () => ctl.setOptions({ order: sel.value }));
  const label = el('label', 'mpv-ctl');
  label.title =
    "The order the nodes run in: the model's; the one ONNX Runtime runs them in, depth-first from the outputs (plan --order onnxruntime); or the one with the lowest peak the schedulers find (plan --order best)";
  label.append(el('span', 'mpv-ctl-label', 'order'), sel);
  const sync = (s) => {
    // A saved plan shows the order it was made in.
    const doc = !s.hasModel && s.source === 'plan' ? s.plan : null;
    const asked = doc?.order?.asked ?? 'file';
    sel.value = doc ? (ORDERS.includes(asked) ? asked : 'best') : s.order;
    sel.disabled = !s.hasModel;
  };
  return { el: label, sync };
}

const bytes = (v) => (v === null ? '—' : `${formatBytes(v)} (${formatInt(v)} B)`);

/** The order line, appended to `container`: shown when the plan was made under an order. */
export function createOrderFigures(container, ctl) {
  const line = el('p', 'mpv-order-line');
  line.hidden = true;
  container.append(line);
  const figure = (key, text) => {
    const b = el('strong', '', text);
    b.dataset.orderFigure = key;
    return b;
  };
  ctl.on('applied', ({ body }) => {
    const f = orderFigures(body);
    line.hidden = !f;
    if (!f) {
      line.replaceChildren();
      return;
    }
    line.dataset.order = f.name;
    const name = f.name === 'onnxruntime' ? LABELS.onnxruntime : f.name;
    const how = f.moved
      ? `${name}${f.exact ? ', proven lowest' : ''}, ${formatInt(f.moved)} positions moved`
      : `the file's${f.exact ? ', proven lowest' : ''}`;
    // ONNX Runtime's order may need more than the file's: then the line says so
    const more = f.saving !== null && f.saving < 0;
    const pct = f.savingRatio === null ? '' : ` (${(Math.abs(f.savingRatio) * 100).toFixed(1)}%)`;
    const t = (s) => document.createTextNode(s);
    line.replaceChildren(
      t(`Order: ${how}. Peak in the file order `),
      figure('file-peak', bytes(f.filePeak)),
      t(' · in this order '),
      figure('peak', bytes(f.peak)),
      t(more ? ' · more than the file order by ' : ' · saving '),
      figure('saving', f.saving === null ? '—' : `${bytes(Math.abs(f.saving))}${pct}`),
      ...(f.written === null
        ? []
        : [t(' · written for ONNX Runtime (Reordered .onnx): lower bound '), figure('written', bytes(f.written))]),
    );
  });
}
