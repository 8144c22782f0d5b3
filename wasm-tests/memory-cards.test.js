// The memory beside the arena, as the page reads it from a plan document:
// modelMemory (web/src/data/plan.js) and the Weights and Total-to-fit cards'
// text (memoryCards, web/src/app/figures.js), on hand-made plan JSON with
// exact expected values. The same figures from real models through WASM and
// the CLI: memory-totals.test.js; the cards on the page: browser/nested.test.js.
import { describe, expect, it } from 'vitest';
import { modelMemory } from '../web/src/data/plan.js';
import { memoryCards } from '../web/src/app/figures.js';

/** A planned main-graph plan document with the given memory figures. */
const planDoc = ({ weights, inputs, total, why = null, peak = 4096, status = 'planned' } = {}) => ({
  status,
  peak_bytes: status === 'planned' ? peak : null,
  weights: { bytes: 1000, count: 3, unknown: 0, folded: true, ...weights },
  inputs: { bytes: 2048, count: 1, unknown: 0, in_arena: false, ...inputs },
  total_bytes: total === undefined ? 1000 + 2048 + peak : total,
  total_unknown_reason: why,
});

describe('modelMemory', () => {
  it('reads weights, inputs and the total as the JSON gives them', () => {
    expect(modelMemory(planDoc())).toEqual({
      weights: { bytes: 1000, count: 3, unknown: 0, folded: true, loadOnly: { bytes: 0, count: 0 } },
      inputs: { bytes: 2048, count: 1, unknown: 0, inArena: false },
      total: 7144,
      hasTotal: true,
      totalWhy: null,
    });
  });

  it('keeps counts beyond 2^53 as BigInt, and flags', () => {
    const big = 2n ** 56n + 3n;
    const m = modelMemory(
      planDoc({ weights: { bytes: big, folded: false }, inputs: { in_arena: true }, total: big + 4096n }),
    );
    expect(m.weights).toEqual({ bytes: big, count: 3, unknown: 0, folded: false, loadOnly: { bytes: 0, count: 0 } });
    expect(m.inputs.inArena).toBe(true);
    expect(m.total).toBe(big + 4096n);
  });

  it('a body plan (no inputs, no total_bytes) and a missing document', () => {
    const body = planDoc();
    delete body.inputs;
    delete body.total_bytes;
    delete body.total_unknown_reason;
    expect(modelMemory(body)).toEqual({
      weights: { bytes: 1000, count: 3, unknown: 0, folded: true, loadOnly: { bytes: 0, count: 0 } },
      inputs: null,
      total: null,
      hasTotal: false,
      totalWhy: null,
    });
    expect(modelMemory(null)).toEqual({ weights: null, inputs: null, total: null, hasTotal: false, totalWhy: null });
    expect(modelMemory({ weights: { bytes: 'x' } }).weights, 'a non-count is no tally').toBeNull();
  });
});

describe('memoryCards', () => {
  it('a known total: weights + inputs + peak, exact in the title', () => {
    const { weights, total } = memoryCards(planDoc());
    expect(weights.value).toBe('1,000 B');
    expect(weights.exact).toBe('1,000 B');
    expect(weights.title).toBe(
      'Initializers and constants folded at load, of the main graph and every body, kept once loaded: 3 values of ' +
        'known size. Never in the arena (weights.bytes)',
    );
    expect(total).toEqual({
      value: '6.98 KiB',
      exact: '7,144 B',
      note: 'incl. 2.00 KiB of inputs',
      title:
        'What a runtime holds to run the model: weights 1,000 B + graph inputs 2,048 B (1 value, outside the arena) + ' +
        'planned peak 4,096 B = 7,144 B (total_bytes)',
    });
  });

  it('load-only weights: read from the JSON, named in the title, not in the figure', () => {
    const doc = planDoc({ weights: { load_only_bytes: 5302016, load_only_count: 264 } });
    expect(modelMemory(doc).weights.loadOnly).toEqual({ bytes: 5302016, count: 264 });
    const { weights, total } = memoryCards(doc);
    expect(weights.value).toBe('1,000 B');
    expect(weights.title).toMatch(
      /\. Not counted: 264 values \(5,302,016 B\) read or computed at load and then dropped, such as a folded chain’s intermediates \(weights\.load_only_bytes\)$/,
    );
    expect(total.exact).toBe('7,144 B');
  });

  it('values of no static size (unplanned) are said not to be counted, in the note and the title', () => {
    const doc = {
      ...planDoc(),
      unplanned: [
        { name: 'output_probability', reason: 'sequence' },
        { name: 'names', reason: 'string tensor' },
      ],
    };
    const { total } = memoryCards(doc);
    expect(total.exact).toBe('7,144 B');
    expect(total.note).toBe('incl. 2.00 KiB of inputs · 2 values of no static size not counted');
    expect(total.title).toBe(
      'What a runtime holds to run the model: weights 1,000 B + graph inputs 2,048 B (1 value, outside the arena) + ' +
        'planned peak 4,096 B = 7,144 B (total_bytes). Not counted: 2 values of no static size ' +
        '(output_probability: sequence; names: string tensor)',
    );
    expect(memoryCards({ ...planDoc(), unplanned: [] }).total.note, 'none: the note as before').toBe(
      'incl. 2.00 KiB of inputs',
    );
  });

  it('a KV cache in place (--share-kv): said in the note, the pairs in the title', () => {
    const pairs = ['0.key', '0.value', '1.key'].map((k) => ({ output: `present.${k}`, input: `past_key_values.${k}` }));
    const { total } = memoryCards({ ...planDoc(), share_kv: pairs });
    expect(total.exact).toBe('7,144 B');
    expect(total.note).toBe('incl. 2.00 KiB of inputs · KV cache in place');
    expect(total.title).toBe(
      'What a runtime holds to run the model: weights 1,000 B + graph inputs 2,048 B (1 value, outside the arena) + ' +
        'planned peak 4,096 B = 7,144 B (total_bytes). 3 present outputs written into their past input’s buffer ' +
        '(KV cache in place: present.0.key → past_key_values.0.key, present.0.value → past_key_values.0.value, …)',
    );
    expect(memoryCards(planDoc()).total.note, 'without: the note as before').toBe('incl. 2.00 KiB of inputs');
  });

  it('inputs in the arena are not added again', () => {
    const { total } = memoryCards(planDoc({ inputs: { in_arena: true }, total: 1000 + 4096 }));
    expect(total.exact).toBe('5,096 B');
    expect(total.note).toBe('inputs in the arena');
    expect(total.title).toBe(
      'What a runtime holds to run the model: weights 1,000 B + planned peak 4,096 B = 5,096 B; the graph inputs ' +
        '(2,048 B) are in the arena (include inputs) (total_bytes)',
    );
  });

  it('weights of unknown size: "≥" on the weights, the total not known and why', () => {
    const doc = planDoc({ weights: { unknown: 2 }, total: null, why: 'some weights have no known size' });
    const { weights, total } = memoryCards(doc);
    expect(weights.value).toBe('≥ 1,000 B');
    expect(weights.exact).toBe('1,000 B + 2 values of unknown size');
    expect(total.value).toBe('—');
    expect(total.exact).toBe('some weights have no known size');
    expect(total.title).toBe(
      'Weights + graph inputs outside the arena + planned peak (total_bytes): not known, some weights have no known size',
    );
  });

  it('the reason the total is not known is the document’s (total_unknown_reason), not worked out again', () => {
    const why = (doc) => memoryCards(doc).total.exact;
    // a reason that none of the document's other figures would give: read, not derived
    expect(why(planDoc({ total: null, why: 'the sum is beyond 64 bits' }))).toBe('the sum is beyond 64 bits');
    expect(why(planDoc({ status: 'deferred', total: null, why: 'the plan is deferred' }))).toBe('the plan is deferred');
    const older = planDoc({ total: null });
    delete older.total_unknown_reason;
    expect(why(older), 'null with no reason given').toBe('not given');
    const old = planDoc();
    delete old.total_bytes;
    delete old.total_unknown_reason;
    expect(why(old)).toBe('not in this plan document');
  });

  it('a body shown: the whole model’s figures, said so', () => {
    const { weights, total } = memoryCards(planDoc(), { body: true });
    expect(weights.title).toContain('of the whole model (the main graph and every body), not only the body shown');
    expect(total.title).toMatch(/^What a runtime holds to run the model \(the whole model, not only the body shown\)/);
  });
});
