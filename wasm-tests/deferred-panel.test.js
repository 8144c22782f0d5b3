// The deferred panel's text (deferredText, web/src/app/figures.js) on plan
// JSON of the shape `memplan plan --json` gives for Silero VAD v5 with its
// dims bound and sr left out: no dim unbound, the input value sr to set, and
// the dims made up inside the graph listed by reason without their unk__N
// names. The panel on the page: browser/coldpage.test.js.
import { describe, expect, it } from 'vitest';
import { deferredText } from '../web/src/app/figures.js';
import { normalizePlan } from '../web/src/data/plan.js';

const internal = (name, reason, extra = {}) => ({ name, reason, data_dependent: false, bind_instead: [], ...extra });
const IF0 = "size unknown after If (node 'If_0')";
const CONV = "size unknown after Conv (node 'If_0_else_branch__Inline_0__/decoder/decoder/2/Conv')";
const v5 = (unknown) =>
  normalizePlan({
    status: 'deferred',
    values: [],
    unknown: {
      values: [
        { name: 'If_0_outputs_0', reason: 'unbound dims' },
        { name: 'If_0_outputs_1', reason: 'unbound dims' },
      ],
      dims: [],
      internal_dims: [
        internal('unk__17', IF0),
        internal('unk__18', IF0),
        internal('unk__19', IF0),
        internal('unk__20', IF0),
        internal('unk__12', CONV),
        internal('unk__13', CONV),
      ],
      value_inputs: ['sr'],
      subgraphs: [],
      ...unknown,
    },
  });
const TAIL = ' Reasons: unbound dims (2). The timeline shows every interval; offsets and totals wait for the sizes.';

describe('deferredText', () => {
  it('every dim bound, sr not set: names sr and its field, lists the made-up dims by reason without unk__N', () => {
    const t = deferredText(v5(), ['sr']);
    expect(t.head).toBe(
      'Deferred: 2 values have no known size yet.' +
        ' Set the value of the input sr in the "Input values" field above:' +
        " its value may decide an If's branch, a trip count or a shape that no dim can." +
        TAIL,
    );
    expect(t.internal).toBe(`6 dims made up inside the model (not bindable): ${IF0} (4 dims); ${CONV} (2 dims).`);
    expect(t.internal).not.toMatch(/unk__/);
  });

  it('an input the page has no field for (a saved plan) is named with --value; several are listed', () => {
    const t = deferredText(v5({ value_inputs: ['sr', 'use_cache_branch'] }), ['sr']);
    expect(t.head).toBe(
      'Deferred: 2 values have no known size yet.' +
        ' Set the value of the inputs sr in the "Input values" field above,' +
        ' and use_cache_branch with --value NAME=V (the page has no field for it):' +
        " their values may decide an If's branch, a trip count or a shape that no dim can." +
        TAIL,
    );
  });

  it('unbound dims and no value input: the dims, as before; the dims to bind instead and data-dependent ones said', () => {
    const t = deferredText(
      v5({
        dims: ['seq'],
        value_inputs: [],
        internal_dims: [
          internal('unk__3', "size unknown after NonZero (node 'nz')", { data_dependent: true }),
          internal('unk__4', "size unknown after Reshape (node 'r')", { bind_instead: ['seq', 'batch'] }),
        ],
      }),
    );
    expect(t.head).toBe(
      'Deferred: 2 values have no known size yet, and 1 symbolic dim is unbound (set them above).' + TAIL,
    );
    expect(t.internal).toBe(
      "2 dims made up inside the model (not bindable): size unknown after NonZero (node 'nz') (data-dependent); " +
        "size unknown after Reshape (node 'r'): bind seq, batch instead.",
    );
  });

  it('a plan without value_inputs or internal_dims (older builds): no value sentence, no internal line', () => {
    const t = deferredText(v5({ value_inputs: undefined, internal_dims: undefined }), []);
    expect(t).toEqual({ head: 'Deferred: 2 values have no known size yet.' + TAIL, internal: '' });
  });
});
