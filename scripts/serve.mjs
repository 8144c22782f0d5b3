#!/usr/bin/env node
// serve.mjs -- a tiny static file server for the built page (web/dist), used by
// `make demo` and the browser tests. Binds 127.0.0.1 only.
//   node scripts/serve.mjs [--dir web/dist] [--port 8080]   (--port 0: any free port)
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream', '.svg': 'image/svg+xml', '.png': 'image/png', '.txt': 'text/plain; charset=utf-8',
};

/** Serve dir on 127.0.0.1:port; resolves to {server, url}. */
export function serve(dir, port = 0, { log = false } = {}) {
  const root = resolve(dir);
  const server = createServer((req, res) => {
    let path;
    try {
      path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    } catch {
      res.writeHead(400).end();
      return;
    }
    let file = normalize(join(root, path));
    if (file !== root && !file.startsWith(root + sep)) { res.writeHead(403).end(); return; }
    try {
      if (statSync(file).isDirectory()) file = join(file, 'index.html');
      const st = statSync(file);
      res.writeHead(200, {
        'Content-Type': TYPES[extname(file)] || 'application/octet-stream',
        'Content-Length': st.size,
        'Cache-Control': 'no-cache',
        'X-Content-Type-Options': 'nosniff',
      });
      if (req.method === 'HEAD') { res.end(); return; }
      createReadStream(file).pipe(res);
      if (log) console.log(`${req.method} ${path} 200`);
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
      if (log) console.log(`${req.method} ${path} 404`);
    }
  });
  return new Promise((resolveP, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      resolveP({ server, url: `http://127.0.0.1:${server.address().port}/` });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, def) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : def; };
  const dir = opt('--dir', 'web/dist');
  const { url } = await serve(dir, Number(opt('--port', '8080')), { log: args.includes('--log') });
  console.log(`serving ${resolve(dir)} at ${url}`);
}
