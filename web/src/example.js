// example.js -- the model the page opens on, and the dims and input values it
// is planned with (main.js opens it; the browser tests import it).
/**
 * The example the page opens on: Silero VAD v5 (2.3 MB), planned complete. Its
 * five main-graph nodes hide 684 more inside If branches (one per sample
 * rate), so it teaches what the page is for: the memory inside control flow
 * counted at its node, the branch the bound `sr` selects, and the other one a
 * click away. Preset as the model is fed: one stream (batch 1, state [2, 1,
 * 128]), 512-sample chunks at sr = 16000.
 */
export const EXAMPLE = Object.freeze({
  name: 'example.onnx (Silero VAD v5)',
  preset: Object.freeze({ dims: { 'input:0': 1, 'input:1': 512, 'state:1': 1 }, values: { sr: 16000 } }),
});
