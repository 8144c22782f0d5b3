// d3-global.js -- the module 'd3' for a page without a bundler.
//
// d3's npm package has no single-file ES module (dist/d3.mjs re-exports its
// thirty sub-packages by bare name), but its UMD build is one file that sets
// globalThis.d3. A page loads that with a classic script and maps 'd3' here:
//   <script src="node_modules/d3/dist/d3.min.js"></script>
//   <script type="importmap">{"imports": {"d3": "./node_modules/onnx-memplan/d3-global.js"}}</script>
// The names below are the ones the visualizer imports (scripts/pack.mjs
// refuses to pack when a module imports one that is missing here).
const d3 = globalThis.d3;
if (!d3 || typeof d3.select !== 'function')
  throw new Error(
    "onnx-memplan/d3-global.js: load d3's UMD build (node_modules/d3/dist/d3.min.js) with a <script> before the view",
  );
export const {
  axisBottom,
  axisLeft,
  brushX,
  brushY,
  format,
  line,
  scaleBand,
  scaleLinear,
  select,
  zoom,
  zoomIdentity,
} = d3;
