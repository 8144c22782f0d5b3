// controls.js -- the plan's options: strategy (arena/slots), alignment,
// in-place reuse, Reset zoom, one input per symbolic dim (typing re-plans
// after a 200 ms pause; "Set empty to 1") and, beside them, one per integer or
// bool graph input whose value can be bound (`--value`: If conditions, Loop
// trip counts, Reshape targets resolve from it; a value that does not fit the
// input is said so under it and not sent). Writes go through the controller;
// the controls show its state.
import { el } from '../charts/base.js';
import { ALIGNS } from './controller.js';
import { createOrderControl } from './order.js';

const DIM_PAUSE_MS = 200;

export function createControls(container, ctl) {
  const controls = el('div', 'mpv-controls');
  const stratGroup = el('div', 'mpv-seg');
  stratGroup.setAttribute('role', 'radiogroup');
  stratGroup.setAttribute('aria-label', 'strategy');
  const stratBtns = {};
  for (const s of ['arena', 'slots']) {
    const b = el('button', 'mpv-seg-btn', s);
    b.type = 'button';
    b.dataset.strategy = s;
    b.setAttribute('role', 'radio');
    b.addEventListener('click', () => {
      if (ctl.state.strategy !== s) ctl.setOptions({ strategy: s });
    });
    stratBtns[s] = b;
    stratGroup.append(b);
  }
  // A radiogroup: one tab stop (the checked radio), the arrow keys move and choose.
  stratGroup.addEventListener('keydown', (ev) => {
    if (!['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown'].includes(ev.key)) return;
    ev.preventDefault();
    const next = ctl.state.strategy === 'arena' ? 'slots' : 'arena';
    if (stratBtns[next].disabled) return;
    stratBtns[next].focus();
    ctl.setOptions({ strategy: next });
  });
  const alignSel = el('select', 'mpv-align');
  for (const a of ALIGNS) {
    const o = el('option', '', `${a} B`);
    o.value = String(a);
    alignSel.append(o);
  }
  alignSel.addEventListener('change', () => ctl.setOptions({ align: Number(alignSel.value) }));
  // A checkbox label for a boolean plan option (`key` of setOptions).
  const checkOption = (className, text, key, title) => {
    const input = el('input');
    input.type = 'checkbox';
    input.className = className;
    input.addEventListener('change', () => ctl.setOptions({ [key]: input.checked }));
    const label = el('label', 'mpv-check');
    label.title = title;
    label.append(input, document.createTextNode(` ${text}`));
    return [input, label];
  };
  const [inplace, inplaceLabel] = checkOption(
    'mpv-inplace',
    'in-place reuse',
    'inplace',
    'In-place reuse: an output may take the buffer of an input read for the last time (plan --inplace)',
  );
  // A KV cache's present outputs written into the past inputs' buffers (plan
  // --share-kv): offered only when the model has such pairs.
  const [shareKv, shareKvLabel] = checkOption(
    'mpv-share-kv',
    'KV cache in place',
    'shareKv',
    "KV cache in one buffer: each present output is written into its past input's buffer, as ONNX Runtime GenAI does with past_present_share_buffer (plan --share-kv). Bind the past length to the cache's full length.",
  );
  shareKvLabel.hidden = true;
  // QDQ node units planned fused (plan --fuse-qdq): offered when the plan has such units.
  const [fuseQdq, fuseQdqLabel] = checkOption(
    'mpv-fuse-qdq',
    'QDQ fused',
    'fuseQdq',
    "QDQ units fused, as ONNX Runtime's CPU execution provider runs them: each DequantizeLinear → op → QuantizeLinear unit reads and writes the quantized tensors, so the float values between them take no memory (plan --fuse-qdq). What ONNX Runtime fuses depends on the platform and the quantization parameters: unticked, the graph as written.",
  );
  fuseQdqLabel.hidden = true;
  // Each node's kernel workspace planned as a buffer at its position (plan
  // --workspace): offered when some node's kernel takes scratch memory.
  const [workspace, workspaceLabel] = checkOption(
    'mpv-workspace',
    'Kernel workspace',
    'workspace',
    "The scratch memory ONNX Runtime's CPU kernels allocate while they run (one intra-op thread, the graph as written): a convolution's im2col, a recurrent op's gate buffers, a quantized matrix product's int32 result, planned as a buffer at the node's position (plan --workspace). Unticked: tensors only.",
  );
  workspaceLabel.hidden = true;
  // The graph ONNX Runtime's CPU execution provider runs for a float16 model
  // (plan --float16-cpu): offered when the plan has float16 nodes it runs in float32.
  const [float16Cpu, float16CpuLabel] = checkOption(
    'mpv-float16-cpu',
    'float16 on the CPU',
    'float16Cpu',
    "The graph ONNX Runtime's CPU execution provider runs for a float16 model: the float16 nodes without a float16 kernel run in float32, between the Casts it inserts (their float32 copies of inputs, weights and outputs are values of that graph), planned in its place (plan --float16-cpu). Unticked: the graph as written.",
  );
  float16CpuLabel.hidden = true;
  const resetZoom = el('button', 'mpv-btn', 'Reset zoom');
  resetZoom.type = 'button';
  resetZoom.addEventListener('click', () => ctl.linked.setXDomain(null));
  const ctlRow = el('div', 'mpv-ctl-row');
  const lab = (text, node) => {
    const l = el('label', 'mpv-ctl');
    l.append(el('span', 'mpv-ctl-label', text), node);
    return l;
  };
  const stratWrap = el('div', 'mpv-ctl');
  stratWrap.append(el('span', 'mpv-ctl-label', 'strategy'), stratGroup);
  const fixedNote = el(
    'span',
    'mpv-fixed-note muted',
    'a saved plan: these are the options it was made with (open the model to change them)',
  );
  fixedNote.hidden = true;
  const orderCtl = createOrderControl(ctl);
  ctlRow.append(
    stratWrap,
    lab('alignment', alignSel),
    inplaceLabel,
    shareKvLabel,
    fuseQdqLabel,
    workspaceLabel,
    float16CpuLabel,
    orderCtl.el,
    resetZoom,
    fixedNote,
  );

  const dimsBox = el('fieldset', 'mpv-dims');
  const dimsLegend = el('legend', '', 'Symbolic dims');
  const dimsList = el('div', 'mpv-dims-list');
  const dimsAll = el('button', 'mpv-btn mpv-dims-all', 'Set empty to 1');
  dimsAll.type = 'button';
  dimsAll.title = 'Give every unbound input dim the value 1 (the dims made up inside the model stay unbound)';
  // The dims that are no input's: made up inside the model; listed apart, outside "Set empty to 1".
  const otherBox = el('details', 'mpv-dims-other');
  const otherSummary = el('summary', 'muted');
  const otherList = el('div', 'mpv-dims-list');
  otherBox.append(
    otherSummary,
    el(
      'p',
      'muted mpv-dims-note',
      'Made up inside the model by shape inference or declared on inner values: a value for them is a guess. Bind the input dims (or input values) above instead.',
    ),
    otherList,
  );
  otherBox.hidden = true;
  dimsAll.addEventListener('click', () => ctl.fillDims('1'));
  dimsBox.append(dimsLegend, dimsList, dimsAll, otherBox);
  dimsBox.hidden = true;
  const valuesBox = el('fieldset', 'mpv-dims mpv-values-box');
  const valuesList = el('div', 'mpv-values');
  valuesBox.append(el('legend', '', 'Input values'), valuesList);
  valuesBox.hidden = true;
  controls.append(ctlRow, valuesBox, dimsBox);
  container.append(controls);

  function sync() {
    const s = ctl.state;
    for (const [k, b] of Object.entries(stratBtns)) {
      b.classList.toggle('on', k === s.strategy);
      b.setAttribute('aria-checked', String(k === s.strategy));
      b.tabIndex = k === s.strategy ? 0 : -1;
    }
    alignSel.value = String(s.align);
    inplace.checked = s.inplace;
    shareKv.checked = s.shareKv;
    shareKvLabel.hidden = !s.kvPairs.length;
    fuseQdq.checked = s.fuseQdq;
    fuseQdqLabel.hidden = !s.fuseQdq && !s.assumptions.some((a) => a.kind === 'qdq' && a.units > 0);
    workspace.checked = s.workspace;
    workspaceLabel.hidden = !s.workspace && !(s.plan?.kernel_workspace?.nodes > 0);
    float16Cpu.checked = s.float16Cpu;
    float16CpuLabel.hidden = !s.float16Cpu && !s.plan?.onnxruntime_float16;
    // A plan document (or a cancelled model) cannot be planned again: its options are what it was made with.
    const fixed = !s.hasModel;
    inplace.disabled = fixed;
    shareKv.disabled = fixed;
    fuseQdq.disabled = fixed;
    workspace.disabled = fixed;
    float16Cpu.disabled = fixed;
    alignSel.disabled = fixed;
    for (const b of Object.values(stratBtns)) b.disabled = fixed;
    dimsAll.disabled = fixed;
    for (const i of controls.querySelectorAll('.mpv-dim input, .mpv-value input')) i.disabled = fixed;
    orderCtl.sync(s);
    fixedNote.hidden = !(fixed && s.source === 'plan');
    if (fixed && s.source === 'plan' && s.plan) {
      alignSel.value = String(s.plan.align ?? s.align);
      for (const [k, b] of Object.entries(stratBtns)) {
        b.classList.toggle('on', k === s.plan.strategy);
        b.setAttribute('aria-checked', String(k === s.plan.strategy));
      }
      inplace.checked = !!s.plan.inplace?.enabled;
      shareKv.checked = !!s.plan.share_kv;
      shareKvLabel.hidden = !s.plan.share_kv;
      fuseQdq.checked = s.assumptions.some((a) => a.kind === 'qdq' && a.fused > 0);
      workspace.checked = s.plan.kernel_workspace?.included === true;
      workspaceLabel.hidden = !(s.plan.kernel_workspace?.nodes > 0);
      float16Cpu.checked = !!s.plan.onnxruntime_cpu_graph;
      float16CpuLabel.hidden = !s.plan.onnxruntime_cpu_graph && !s.plan.onnxruntime_float16;
    }
  }

  function dimInput(d) {
    const where = ctl.state.inputDims.find((x) => x.name === d);
    const l = el('label', 'mpv-dim');
    l.title = where ? `input ${where.input}, axis ${where.axis}` : "not an input's dim: made up inside the model";
    const input = el('input');
    input.type = 'number';
    input.min = '0';
    input.step = '1';
    input.placeholder = 'unbound';
    input.dataset.dim = d;
    input.setAttribute(
      'aria-label',
      where ? `dim ${d} (input ${where.input}, axis ${where.axis})` : `dim ${d} (made up inside the model)`,
    );
    input.addEventListener('input', () => {
      ctl.setDim(d, input.value.trim());
      ctl.replanSoon(DIM_PAUSE_MS);
    });
    l.append(el('span', 'mpv-dim-name', d), input);
    return l;
  }
  function valueInput(inp) {
    const l = el('label', 'mpv-value');
    const input = el('input');
    input.type = 'text';
    input.inputMode = inp.dtype === 'bool' ? 'text' : 'numeric';
    input.placeholder =
      inp.dtype === 'bool' ? 'true or false' : inp.count > 1 ? `${inp.count} numbers, a,b,…` : 'unbound';
    input.dataset.value = inp.name;
    input.setAttribute('aria-label', `value of input ${inp.name} (${inp.dtype} [${inp.shape.join(', ')}])`);
    const err = el('span', 'mpv-value-error');
    err.setAttribute('role', 'status');
    input.addEventListener('input', () => {
      ctl.setValue(inp.name, input.value.trim());
      const msg = ctl.valueError(inp.name);
      err.textContent = msg ?? '';
      input.classList.toggle('invalid', !!msg);
      input.setAttribute('aria-invalid', String(!!msg));
      // A value that does not fit is not sent (a re-plan already waiting leaves it out).
      if (!msg) ctl.replanSoon(DIM_PAUSE_MS);
    });
    const name = el('span', 'mpv-dim-name', inp.name);
    name.title = `${inp.dtype} [${inp.shape.join(', ')}]`;
    const wrap = el('span');
    wrap.append(input, err);
    l.append(name, wrap);
    return l;
  }
  function renderValues() {
    const { values, valueInputs } = ctl.state;
    valuesBox.hidden = valueInputs.length === 0;
    const have = [...valuesList.querySelectorAll('input')].map((i) => i.dataset.value);
    if (have.join('\n') !== valueInputs.map((v) => v.name).join('\n'))
      valuesList.replaceChildren(...valueInputs.map(valueInput));
    const focused = document.activeElement?.dataset?.value;
    for (const input of valuesList.querySelectorAll('input')) {
      if (input.dataset.value !== focused) input.value = values[input.dataset.value] ?? '';
      input.classList.toggle('unbound', !(values[input.dataset.value] ?? ''));
    }
  }

  // The inputs are rebuilt only when the dim names change (a focused input keeps its text).
  function renderDims() {
    const { dims, dimNames, inputDims } = ctl.state;
    dimsBox.hidden = dimNames.length === 0;
    const focused = document.activeElement?.dataset?.dim;
    const bindable = new Set(inputDims.map((d) => d.name));
    // A plan document knows no inputs: its dims are all listed as they come.
    const isInput = (d) => bindable.has(d) || inputDims.length === 0;
    const mine = dimNames.filter(isInput),
      other = dimNames.filter((d) => !isInput(d));
    const sync = (list, names) => {
      const have = [...list.querySelectorAll('input')].map((i) => i.dataset.dim);
      if (have.join('\n') !== names.join('\n')) list.replaceChildren(...names.map(dimInput));
    };
    sync(dimsList, mine);
    sync(otherList, other);
    otherBox.hidden = other.length === 0;
    // Once the plan is complete they are not needed: "N unbound" there read as something missing.
    const open = other.filter((d) => !dims[d]).length;
    otherSummary.textContent =
      `${other.length} dim${other.length === 1 ? '' : 's'} made up inside the model ` +
      (ctl.state.plan?.status === 'planned' ? '(the plan does not need them)' : `(${open} unbound)`);
    for (const input of dimsBox.querySelectorAll('input')) {
      if (input.dataset.dim !== focused) input.value = dims[input.dataset.dim] ?? '';
      input.classList.toggle('unbound', !(dims[input.dataset.dim] ?? ''));
    }
    const unbound = mine.filter((d) => !dims[d]);
    dimsLegend.textContent = unbound.length
      ? `Symbolic dims — ${unbound.length} of ${mine.length} unbound`
      : `Symbolic dims (${mine.length})`;
  }

  // The options show the state whenever a plan or the table is redrawn, and when they change.
  for (const type of ['options', 'applied', 'table', 'dims', 'status']) ctl.on(type, sync);
  ctl.on('dims', renderDims);
  ctl.on('applied', renderDims);
  for (const type of ['info', 'dims', 'applied']) ctl.on(type, renderValues);
  sync();
}
