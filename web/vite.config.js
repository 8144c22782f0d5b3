// Vite: builds the page in web/ into web/dist/ (npm run build:web).
import { join } from 'node:path';
import { defineConfig } from 'vite';
import { syncExample, syncWasm } from '../scripts/prepare_web.mjs';

syncWasm(); // build/wasm/memplan.{mjs,wasm} -> web/src/wasm/ (imported by the wrapper)
syncExample(); // the example model -> web/public/models/example.onnx

export default defineConfig({
  root: import.meta.dirname,
  base: './', // relative URLs: the built site works under any path
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0, // memplan.wasm stays a file (CSP: no data: URLs for it)
    rollupOptions: {
      // The demo page, and a host page that embeds the visualizer (<memplan-view>, mount()).
      input: { main: join(import.meta.dirname, 'index.html'), embed: join(import.meta.dirname, 'embed.html') },
    },
  },
  worker: { format: 'es' },
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
});
