#!/usr/bin/env node
// serve.mjs -- a small static file server for the built page (web/dist), used by
// `make demo` and the browser tests. Node's standard library only.
//   node scripts/serve.mjs [--dir web/dist] [--port 8080] [--idle-ms 15000] [--log]   (--port 0: any free port)
//
// It is meant to survive whatever a page, a hostile site in the same browser or
// a local process throws at it (issue 21):
// - binds 127.0.0.1 only and answers only requests whose Host is 127.0.0.1 or
//   localhost (with this server's port, or none): a DNS-rebinding page on
//   another name gets 403;
// - serves regular files inside the folder only: a path is resolved, opened,
//   and the file actually opened (/proc/self/fd) must lie inside the folder's
//   real path, so a symbolic link leading out of it is refused (403; links
//   inside it work); directories, devices and FIFOs are not files (404);
// - streams through stream.pipeline, so a read error (EISDIR, EIO) ends that
//   response only, and a client that goes away mid-download closes the file;
//   EMFILE/ENFILE (out of descriptors) is a 503, a failed accept() is logged;
// - sends the page's Content-Security-Policy as a header on every response,
//   so a Web Worker script (which a <meta> tag does not cover) has it too;
// - closes idle connections: no request headers, no activity or an idle
//   keep-alive connection for --idle-ms (default 15 s) ends it.
import { constants as FS } from 'node:fs';
import { open, readlink, realpath } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
};

/** The page's policy, exactly as web/index.html's <meta> states it (wasm-tests/serve.test.js compares them). */
export const CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; connect-src 'self'; " +
  "img-src 'self' data:; style-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'";

const COMMON_HEADERS = {
  'Content-Security-Policy': CSP,
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-cache',
};

/** A status code and a short reason, for requests that cannot be served. */
class Refusal extends Error {
  constructor(status, text) {
    super(text);
    this.status = status;
  }
}

/** The status a failed open or read gets. */
function refusalFor(err) {
  if (err instanceof Refusal) return err;
  switch (err && err.code) {
    case 'ENOENT':
    case 'ENOTDIR':
    case 'EISDIR':
    case 'ELOOP':
    case 'ENAMETOOLONG':
    case 'ENXIO':
      return new Refusal(404, 'not found');
    case 'EACCES':
    case 'EPERM':
      return new Refusal(403, 'forbidden');
    case 'EMFILE':
    case 'ENFILE':
      return new Refusal(503, 'busy: out of file descriptors, try again');
    default:
      return new Refusal(500, 'cannot read the file');
  }
}

/** Control characters written \xNN, so a request path cannot drive the terminal a log goes to. */
const printable = (s) =>
  s.replace(/[\x00-\x1f\x7f-\x9f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);

/** Is `p` the folder `root` or inside it? (both absolute and real) */
const inside = (p, root) => p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);

/** Where an open file handle really is: the kernel's name for it (Linux), else the real path of `path`. */
async function openedPath(fh, path) {
  try {
    return await readlink(`/proc/self/fd/${fh.fd}`);
  } catch {
    return realpath(path);
  }
}

/**
 * Open the regular file `path` names inside realRoot ('/' + a folder: its
 * index.html). Resolves to {fh, size, file}; rejects with a Refusal or an fs error.
 * O_NONBLOCK: opening a FIFO must not wait for a writer.
 */
async function openInside(path, realRoot) {
  for (let attempt = 0; ; attempt++) {
    const fh = await open(path, FS.O_RDONLY | FS.O_NONBLOCK | FS.O_CLOEXEC);
    try {
      const real = await openedPath(fh, path);
      if (!inside(real, realRoot)) throw new Refusal(403, 'forbidden: the file is outside the served folder');
      const st = await fh.stat();
      if (st.isDirectory() && attempt === 0) {
        await fh.close();
        path = join(path, 'index.html');
        continue;
      }
      if (!st.isFile()) throw new Refusal(404, 'not found');
      return { fh, size: st.size, file: path };
    } catch (err) {
      await fh.close().catch(() => {});
      throw err;
    }
  }
}

/** The Host values this server answers to, once it knows its port. */
function allowedHosts(port) {
  return new Set(['127.0.0.1', 'localhost', `127.0.0.1:${port}`, `localhost:${port}`]);
}

/**
 * Serve dir on 127.0.0.1:port; resolves to {server, url}. Options: log (one
 * line per request), idleMs (how long a connection may sit without a request
 * or without activity).
 */
export async function serve(dir, port = 0, { log = false, idleMs = 15_000 } = {}) {
  const root = resolve(dir);
  const realRoot = await realpath(root);
  let hosts = allowedHosts(port);
  const say = (req, status, path) => {
    if (log) console.log(`${req.method} ${printable(path)} ${status}`);
  };

  function refuse(req, res, path, { status, message }) {
    say(req, status, path);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const headers = { ...COMMON_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' };
    if (status === 503) headers['Retry-After'] = '5';
    if (status === 405) headers.Allow = 'GET, HEAD';
    res.writeHead(status, headers).end(`${message}\n`);
  }

  async function handle(req, res) {
    let path = req.url;
    if (!hosts.has(String(req.headers.host || '').toLowerCase())) throw new Refusal(403, 'forbidden: bad Host header');
    if (req.method !== 'GET' && req.method !== 'HEAD') throw new Refusal(405, 'method not allowed');
    try {
      path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    } catch {
      throw new Refusal(400, 'bad request');
    }
    if (path.includes('\0')) throw new Refusal(400, 'bad request');
    const file = normalize(join(root, path));
    if (!inside(file, root)) throw new Refusal(403, 'forbidden');
    const { fh, size, file: served } = await openInside(file, realRoot);
    res.writeHead(200, {
      ...COMMON_HEADERS,
      'Content-Type': TYPES[extname(served)] || 'application/octet-stream',
      'Content-Length': size,
    });
    say(req, 200, path);
    if (req.method === 'HEAD' || size === 0) {
      await fh.close();
      res.end();
      return;
    }
    // pipeline destroys both ends on any error or early close, and the
    // stream's autoClose then closes the file: no descriptor outlives it.
    pipeline(fh.createReadStream({ start: 0, end: size - 1 }), res, () => {});
  }

  const server = createServer(
    {
      requestTimeout: idleMs,
      headersTimeout: idleMs,
      keepAliveTimeout: Math.min(idleMs, 5_000),
      connectionsCheckingInterval: Math.max(100, Math.min(idleMs / 2, 30_000)),
    },
    (req, res) => {
      handle(req, res).catch((err) => refuse(req, res, req.url, refusalFor(err)));
    },
  );
  server.timeout = idleMs; // no activity on a socket (a stalled download too): destroyed
  return new Promise((resolveP, reject) => {
    server.once('error', reject);
    // A deep accept queue: a burst of connections waits there instead of
    // being half-open on the client's side only (SYN-ACK sent, ACK dropped).
    server.listen({ port, host: '127.0.0.1', backlog: 2048 }, () => {
      server.off('error', reject);
      // After listen, errors come from accept() (EMFILE, ENFILE, ECONNABORTED):
      // the connection is lost, the server keeps listening.
      server.on('error', (err) => {
        if (log) console.error(`serve: ${err.code || err.message}`);
      });
      hosts = allowedHosts(server.address().port);
      resolveP({ server, url: `http://127.0.0.1:${server.address().port}/` });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, def) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : def;
  };
  const dir = opt('--dir', 'web/dist');
  const idleMs = Number(opt('--idle-ms', '15000'));
  const { url } = await serve(dir, Number(opt('--port', '8080')), {
    log: args.includes('--log'),
    idleMs: idleMs > 0 ? idleMs : 15_000,
  });
  console.log(`serving ${resolve(dir)} at ${url}`);
}
