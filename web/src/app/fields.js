// fields.js -- the labelled form controls of the sweep and compare panels
// (and the active-memory chart's colour selector): a control inside a
// <label class="mpv-ctl"> with its text, so each is named for screen readers.
import { el } from '../charts/base.js';

/** control inside a label with `text` (before it, or after it for a checkbox); returns the label. */
export function labelled(text, control, { after = false } = {}) {
  const wrap = el('label', 'mpv-ctl');
  const t = el('span', 'mpv-ctl-label', text);
  if (after) wrap.append(control, t);
  else wrap.append(t, control);
  return wrap;
}

/** An <input> of class cls with the given properties (type, value, min, ...), labelled: {input, wrap}. */
export function inputField(text, cls, props = {}) {
  const input = el('input', cls);
  Object.assign(input, props);
  return { input, wrap: labelled(text, input, { after: props.type === 'checkbox' }) };
}

/** A <select> of class cls over options [[value, text]], labelled: {sel, wrap}. */
export function selectField(text, cls, options) {
  const sel = el('select', cls);
  for (const [v, t] of options) {
    const o = el('option', '', t);
    o.value = String(v);
    sel.append(o);
  }
  return { sel, wrap: labelled(text, sel) };
}
