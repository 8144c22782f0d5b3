// order.js -- the execution order of one graph of a plan document (the plan
// JSON's `order`, written with `plan --order`; each body has its own): the
// scheduler that won and the peaks under the file order and under this one.
// Pure: the page's order line (app/order.js) draws what this returns.

/** The file order's peak and lower bound, the chosen order's, the saving
 *  (bytes, and as a share of the file order's peak, 0 when it is 0), the
 *  scheduler's name and whether no order can do better, and under ONNX
 *  Runtime's order (the main graph) `written`: its lower bound for the file
 *  "Reordered .onnx" writes for it (else null); null when the plan was made
 *  in the file order (no `order`). Figures are null while deferred. */
export function orderFigures(doc) {
  const o = doc?.order;
  if (!o || typeof o !== 'object') return null;
  const n = (v) => (typeof v === 'number' ? v : null);
  const filePeak = n(o.file_peak_bytes),
    saving = n(o.saving_bytes);
  return {
    asked: String(o.asked ?? ''),
    name: String(o.name ?? ''),
    exact: o.exact === true,
    moved: Array.isArray(o.positions) ? o.positions.filter((p, i) => p !== i).length : 0,
    filePeak,
    fileLowerBound: n(o.file_lower_bound_bytes),
    peak: n(o.peak_bytes),
    lowerBound: n(o.lower_bound_bytes),
    saving,
    // under ONNX Runtime's order, the main graph: ONNX Runtime's lower bound for the file written for it
    written: n(o.written_lower_bound_bytes),
    savingRatio: filePeak && saving !== null ? Number((saving / filePeak).toPrecision(4)) : saving === null ? null : 0,
  };
}
