// urlstate.js -- the view's state in the page's URL, so a link reopens the
// same view of a model the page can fetch (the example, or ?url=). The
// search keeps ?url= (which model); the hash carries how it is shown:
//
//   #strategy=slots&align=32&inplace=1&kv=1&ws=1&f16=1&order=best&dim.batch=4&value.sr=16000&body=If_0:then_branch&select=conv1_out
//
// `body` (repeated, outermost first) is the control-flow body shown, a step
// NODE:ATTRIBUTE each (the node's name may hold ':'; an attribute name does
// not), so a value selected inside an If branch or a Loop body is reopened
// there.
// encoded as URLSearchParams: keys and values are percent-encoded, so any
// name survives (a dim named "a&b" is "dim.a%26b"). Pure functions; main.js reads the hash at start and rewrites it
// (history.replaceState, no reload) after each plan and selection.
import { ALIGNS, ORDERS } from './controller.js';
import { planAt, searchBodies } from '../data/plan.js';

const DIM = 'dim.';
const VALUE = 'value.';

/**
 * The state a hash asks for: {strategy, align, inplace, shareKv (kv), fuseQdq (qdq), workspace (ws), float16Cpu (f16), order (each undefined when
 * not given or not valid), dims: {name: text}, values: {name: text}, select
 * (a value name or null), body: [{node, attribute}] (the body shown, outermost
 * step first; [] the main graph)}. Unknown keys are ignored.
 */
export function readHash(hash) {
  const q = new URLSearchParams(String(hash ?? '').replace(/^#/, ''));
  // Object.create(null): a dim may be called "__proto__".
  const out = {
    strategy: undefined,
    align: undefined,
    inplace: undefined,
    shareKv: undefined,
    fuseQdq: undefined,
    workspace: undefined,
    float16Cpu: undefined,
    order: undefined,
    dims: Object.create(null),
    values: Object.create(null),
    select: null,
    body: [],
  };
  for (const [k, v] of q) {
    if (k === 'strategy' && (v === 'arena' || v === 'slots')) out.strategy = v;
    else if (k === 'align' && ALIGNS.includes(Number(v))) out.align = Number(v);
    else if (k === 'inplace' && (v === '1' || v === '0')) out.inplace = v === '1';
    else if (k === 'kv' && (v === '1' || v === '0')) out.shareKv = v === '1';
    else if (k === 'qdq' && (v === '1' || v === '0')) out.fuseQdq = v === '1';
    else if (k === 'ws' && (v === '1' || v === '0')) out.workspace = v === '1';
    else if (k === 'f16' && (v === '1' || v === '0')) out.float16Cpu = v === '1';
    else if (k === 'order' && ORDERS.includes(v)) out.order = v;
    else if (k === 'select' && v !== '') out.select = v;
    else if (k === 'body' && v.lastIndexOf(':') > 0) {
      const c = v.lastIndexOf(':');
      out.body.push({ node: v.slice(0, c), attribute: v.slice(c + 1) });
    } else if (k.startsWith(DIM) && k.length > DIM.length) out.dims[k.slice(DIM.length)] = v;
    else if (k.startsWith(VALUE) && k.length > VALUE.length) out.values[k.slice(VALUE.length)] = v;
  }
  return out;
}

/**
 * The hash of a view's state (embed.js's snapshot: strategy, align, inplace,
 * dims, values, body, selected), without the '#'. Unbound dims and values ('') are
 * left out; the options are always written, so the link does not depend on
 * the page's defaults.
 */
export function writeHash(s) {
  const q = new URLSearchParams();
  q.set('strategy', s.strategy);
  q.set('align', String(s.align));
  q.set('inplace', s.inplace ? '1' : '0');
  if (s.shareKv) q.set('kv', '1'); // off unless asked: a model without a KV cache never shows it
  if (s.fuseQdq) q.set('qdq', '1'); // the same: as written unless asked
  if (s.workspace) q.set('ws', '1'); // the same: tensors only unless asked
  if (s.float16Cpu) q.set('f16', '1'); // the same: the graph as written unless asked
  if (s.order && s.order !== 'file') q.set('order', s.order); // the file order is the page's only default left out
  for (const [k, v] of Object.entries(s.dims ?? {})) if (v !== '' && v !== undefined) q.append(DIM + k, v);
  for (const [k, v] of Object.entries(s.values ?? {})) if (v !== '' && v !== undefined) q.append(VALUE + k, v);
  for (const step of s.body ?? []) q.append('body', `${step.node}:${step.attribute}`);
  if (s.selected !== null && s.selected !== undefined) q.set('select', s.selected);
  return q.toString();
}

/**
 * The body a link asks for as a path of plan document `plan` (steps {index,
 * node, attribute}: the index of each in its parent's `subgraphs`), or null
 * when a step is not there. An empty `steps` is the main graph ([]).
 */
export function resolveBody(plan, steps) {
  const at = planAt(plan, steps);
  if (!at) return null;
  let parent = plan;
  return at.entries.map((e) => {
    const index = parent.subgraphs.indexOf(e);
    parent = e.plan;
    return { index, node: e.node, attribute: e.attribute };
  });
}

/**
 * Where a link without `body` finds value `name` (links written before the
 * hash named the body): [] when the main graph has it, the path of the one
 * body that has it, null when none or more than one does.
 */
export function findValue(plan, name) {
  const here = (p) =>
    (p?.values ?? []).some((v) => v?.name === name) || (p?.transients ?? []).some((t) => t?.node === name);
  if (here(plan)) return [];
  const hits = searchBodies(plan, (n) => n === name);
  return hits.length === 1 ? resolveBody(plan, hits[0].path) : null;
}
