// Embedding: <memplan-view> and mount() in a host page (web/embed.html), their
// events, errors and lifetime, and the frozen state and plan they hand out.
import { describe, expect, it } from 'vitest';
import { EXAMPLE_SRC } from '../../scripts/prepare_web.mjs';
import { artifact, cliPlan, TIMEOUT, useBrowser } from './harness.js';

const env = useBrowser();
const mounted = async (env) => {
  const p = await env.newPage();
  await p.goto(`${env.base}embed.html?mount=${encodeURIComponent('models/example.onnx')}`, { timeout: TIMEOUT });
  await p.waitForFunction(() => document.getElementById('mounted').dataset.state === 'ready', null, {
    timeout: TIMEOUT,
  });
  return p;
};

describe('embedding', () => {
  it('<memplan-view> and mount() render inside a separate host page', async () => {
    const p3 = await env.newPage();
    await p3.goto(`${env.base}embed.html?mount=${encodeURIComponent('models/example.onnx')}`, { timeout: TIMEOUT });
    await p3.waitForFunction(
      () =>
        document.getElementById('element').dataset.state === 'ready' &&
        document.getElementById('mounted').dataset.state === 'ready',
      null,
      { timeout: TIMEOUT },
    );
    const r = await p3.evaluate(() => ({
      strategy: document.getElementById('element').plan?.strategy,
      charts: document.querySelectorAll('#element .mpv-chart').length,
      mountedCharts: document.querySelectorAll('#mounted .mpv-chart').length,
      name: document.querySelector('#element .mpv-model-name').textContent,
      csp: window.__csp,
    }));
    // Five linked charts (memory, active memory, timeline, arena, slots), the sweep's and compare's.
    expect(r, 'embedded views').toEqual({
      strategy: 'slots',
      charts: 7,
      mountedCharts: 7,
      name: 'example.onnx',
      csp: [],
    });
    // The element's API re-plans.
    await p3.evaluate(() => document.getElementById('element').setAttribute('strategy', 'arena'));
    await p3.waitForFunction(() => document.getElementById('element').plan?.strategy === 'arena', null, {
      timeout: TIMEOUT,
    });
    await p3.screenshot({ path: artifact('browser-embed.png'), fullPage: true });
    await p3.close();
  });

  it('<memplan-view>: a listener removed before the view is ready is never called', async () => {
    const p3 = await env.newPage();
    await p3.goto(`${env.base}embed.html`, { timeout: TIMEOUT });
    const r = await p3.evaluate(async () => {
      const el = document.createElement('memplan-view');
      el.setAttribute('src', 'models/example.onnx');
      document.body.append(el);
      const calls = { kept: 0, removed: 0 };
      el.on('state', () => calls.kept++);
      const off = el.on('state', () => calls.removed++);
      off();
      await new Promise((res) => {
        const t = setInterval(() => {
          if (el.dataset.state === 'ready') {
            clearInterval(t);
            res();
          }
        }, 20);
      });
      el.remove();
      return { kept: calls.kept > 0, removed: calls.removed };
    });
    expect(r, 'listener calls').toEqual({ kept: true, removed: 0 });
    await p3.close();
  });

  it('mount(): after destroy(), setModel and setDims reject instead of waiting forever on the stopped worker', async () => {
    const p3 = await mounted(env);
    const r = await p3.evaluate(async () => {
      const v = window.mountedView;
      v.destroy();
      const settle = (p) =>
        Promise.race([
          p.then(
            () => 'resolved',
            (e) => e.message,
          ),
          new Promise((res) => setTimeout(() => res('still pending after 3 s'), 3000)),
        ]);
      return [await settle(v.setModel('models/example.onnx')), await settle(v.setDims({ x: 1 }))];
    });
    expect(r, 'calls after destroy').toEqual(['the view was destroyed', 'the view was destroyed']);
    await p3.close();
  });

  it('mount(): setModel rejects with the C message when the bytes are not a model, and the view shows it in its words; setPlan refuses a non-plan and keeps the model', async () => {
    const p3 = await mounted(env);
    const r = await p3.evaluate(async () => {
      const v = window.mountedView;
      const junk = new Uint8Array([0x0a, 0xff, 0xff, 0xff]);
      const outcome = await v.setModel(junk, 'junk.onnx').then(
        () => 'resolved',
        (e) => e.message,
      );
      const shown = document.querySelector('#mounted .mpv-error').textContent;
      // A document that is not a plan is refused before the view changes: the model stays open.
      const notPlan = await v.setPlan('null', 'x.json').then(
        () => 'resolved',
        (e) => e.message,
      );
      return [outcome, shown, notPlan, v.state.name, v.state.hasModel];
    });
    expect(r, 'rejection and shown error').toEqual([
      'malformed protobuf at byte 0: field onnx.ModelProto.ir_version (1) has wire type 2, expected 0',
      'junk.onnx: this is not an ONNX model (malformed protobuf at byte 0: field onnx.ModelProto.ir_version (1) has wire type 2, expected 0)', // shown in the page's words
      'not a plan document: expected the output of `memplan plan --json`',
      'example.onnx',
      true,
    ]);
    await p3.close();
  });

  it('mount() and <memplan-view>: state and plan are frozen snapshots, event details are frozen, and writing to them changes nothing', async () => {
    const p3 = await mounted(env);
    const r = await p3.evaluate(async () => {
      'use strict'; // a write to a frozen object throws
      const v = window.mountedView;
      const tries = [];
      const attempt = (what, fn) => {
        try {
          fn();
          tries.push(`${what}: allowed`);
        } catch (e) {
          tries.push(`${what}: ${e.name}`);
        }
      };
      const state = v.state,
        plan = v.plan;
      attempt('state.strategy', () => {
        state.strategy = 'slots';
      });
      attempt('state.dims', () => {
        state.dims.x = '1';
      });
      attempt('plan.peak_bytes', () => {
        plan.peak_bytes = 0;
      });
      attempt('plan.values[0].size', () => {
        plan.values[0].size = 0;
      });
      const events = [],
        internal = [];
      const off = v.on('plan', (p) =>
        attempt('event plan.status', () => {
          p.status = 'x';
        }),
      );
      for (const type of ['applied', 'status', 'options', 'selection']) v.on(type, () => internal.push(type)); // the DOM modules' events
      v.on('select', (n) => events.push(n));
      await v.setOptions({ strategy: 'slots' });
      off();
      v.select(plan.values[0].name);
      await new Promise((res) => setTimeout(res, 0)); // select() waits for the view
      const el = document.getElementById('element');
      return {
        tries,
        events,
        internal,
        strategy: v.state.strategy,
        before: state.strategy,
        status: v.plan.status,
        size: plan.values[0].size,
        selected: v.state.selected === plan.values[0].name,
        keys: Object.keys(v.state),
        elementFrozen: Object.isFrozen(el.state) && Object.isFrozen(el.plan),
      };
    });
    expect(r.tries).toEqual([
      'state.strategy: TypeError',
      'state.dims: TypeError',
      'plan.peak_bytes: TypeError',
      'plan.values[0].size: TypeError',
      'event plan.status: TypeError',
    ]);
    expect(r.events.length).toBe(1);
    expect(r.internal, 'internal events reach an embedder').toEqual([]);
    expect({
      strategy: r.strategy,
      before: r.before,
      status: r.status,
      size: r.size,
      selected: r.selected,
      elementFrozen: r.elementFrozen,
    }).toEqual({
      strategy: 'slots',
      before: 'arena',
      status: 'deferred',
      size: cliPlan(EXAMPLE_SRC).values[0].size,
      selected: true,
      elementFrozen: true,
    });
    expect(r.keys).toEqual([
      'phase',
      'name',
      'shownName',
      'source',
      'hasModel',
      'status',
      'strategy',
      'align',
      'inplace',
      'shareKv',
      'fuseQdq',
      'workspace',
      'float16Cpu',
      'order',
      'dims',
      'dimNames',
      'values',
      'selected',
      'busy',
      'progress',
      'error',
      'body',
    ]);
    await p3.close();
  });
});
