// serve.test.js -- scripts/serve.mjs (make demo, the browser tests) cannot be
// crashed or made to leak (issue 21). Each server runs as a child process on
// 127.0.0.1 with a 1 s idle timeout, over a temporary folder:
//   index.html, assets/worker-x.js, big.bin (32 MB), trap/index.html/ (a
//   directory named like a file), link-out -> a file outside the folder,
//   linkdir-out -> a folder outside, link-in -> assets/worker-x.js, a FIFO.
// Its descriptors are counted in /proc/PID/fd. Bounded: 1,000 connections per
// case, every case under a minute. (1,000 connections opened at once need an
// accept queue that deep: serve.mjs asks for 2048, net.core.somaxconn allowing.)
import { execFileSync, spawn } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ROOT } from '../scripts/prepare_web.mjs';

const SERVE = join(ROOT, 'scripts', 'serve.mjs');
const IDLE_MS = 1000;
const BIG = 32 << 20;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The CSP of a page's <meta http-equiv="Content-Security-Policy">. */
function metaCsp(file) {
  const m = readFileSync(file, 'utf8').match(/http-equiv="Content-Security-Policy"\s+content="([^"]*)"/);
  if (!m) throw new Error(`${file}: no CSP meta tag`);
  return m[1];
}

/** Start serve.mjs on dir (through `sh -c` when a shell prefix such as a ulimit is given). */
async function startServer(dir, shellPrefix = '') {
  const args = [SERVE, '--dir', dir, '--port', '0', '--idle-ms', String(IDLE_MS)];
  const child = shellPrefix
    ? spawn('/bin/sh', ['-c', `${shellPrefix} && exec "$0" "$@"`, process.execPath, ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    : spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '',
    err = '';
  child.stderr.on('data', (d) => {
    err += d;
  });
  const port = await new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/at http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`serve.mjs exited (${code}): ${err}`)));
  });
  return { child, port, pid: child.pid, stderr: () => err };
}

const fdCount = (pid) => readdirSync(`/proc/${pid}/fd`).length;

/** GET/HEAD path with the given Host header; resolves to {status, headers, body (Buffer)}. */
function get(port, path, { host = `127.0.0.1:${port}`, method = 'GET', timeout = 10_000 } = {}) {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method, agent: false, headers: { Host: host }, timeout },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`GET ${path}: no answer in ${timeout} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** Poll until fn() is true or ms pass; returns its last value. */
async function eventually(fn, ms) {
  const end = Date.now() + ms;
  let v = fn();
  while (!v && Date.now() < end) {
    await sleep(50);
    v = fn();
  }
  return v;
}

/** Open n sockets: the first half send nothing, the others one keep-alive request each
 * (whose answer they read). Resolves once all are connected (and answered) to
 * {answered: how many got a 200, closed: a promise of how many the server ended
 * (FIN from its side) once every socket is closed}. */
async function idleConnections(port, n) {
  const closes = [],
    ready = [];
  let answered = 0;
  for (let i = 0; i < n; i++) {
    const s = connect(port, '127.0.0.1');
    let ended = false;
    s.on('error', () => {});
    s.on('end', () => {
      ended = true;
    });
    s.resume(); // flowing, so the server's FIN is read: a paused socket never sees 'end'
    closes.push(new Promise((r) => s.once('close', () => r(ended))));
    const talk = i >= n / 2;
    ready.push(
      new Promise((r) => {
        s.once('connect', () => {
          if (!talk) return r();
          s.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: keep-alive\r\n\r\n`);
          s.once('data', (d) => {
            if (d.toString().startsWith('HTTP/1.1 200 ')) answered++;
            r();
          });
        });
        s.once('close', r);
      }),
    );
  }
  await Promise.all(ready);
  return { answered, closed: Promise.all(closes).then((e) => e.filter(Boolean).length) };
}

let dir, outside, srv, baseline;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'serve-test-'));
  outside = mkdtempSync(join(tmpdir(), 'serve-outside-'));
  writeFileSync(join(outside, 'secret.txt'), 'the secret\n');
  writeFileSync(join(dir, 'index.html'), '<!doctype html><p>home</p>\n');
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'assets', 'worker-x.js'), 'self.onmessage = () => {};\n');
  writeFileSync(join(dir, 'big.bin'), '');
  truncateSync(join(dir, 'big.bin'), BIG);
  mkdirSync(join(dir, 'trap', 'index.html'), { recursive: true });
  writeFileSync(join(dir, 'trap', 'index.html', 'x.txt'), 'x\n');
  symlinkSync(join(outside, 'secret.txt'), join(dir, 'link-out'));
  symlinkSync(outside, join(dir, 'linkdir-out'));
  symlinkSync('assets/worker-x.js', join(dir, 'link-in'));
  execFileSync('mkfifo', [join(dir, 'fifo')]);
  srv = await startServer(dir);
  expect((await get(srv.port, '/')).status).toBe(200);
  baseline = fdCount(srv.pid);
});

afterAll(() => {
  srv?.child.kill();
  rmSync(dir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('serve.mjs', () => {
  test('the CSP of web/index.html is a header on every response, the worker script included', async () => {
    const csp = metaCsp(join(ROOT, 'web', 'index.html'));
    expect(metaCsp(join(ROOT, 'web', 'embed.html'))).toBe(csp);
    expect(csp).toContain("connect-src 'self'");
    const worker = await get(srv.port, '/assets/worker-x.js');
    expect(worker.status).toBe(200);
    expect(worker.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(worker.headers['content-security-policy']).toBe(csp);
    for (const path of ['/', '/index.html', '/missing.js', '/link-out']) {
      expect((await get(srv.port, path)).headers['content-security-policy'], path).toBe(csp);
    }
  });

  test('a Host other than 127.0.0.1 or localhost (DNS rebinding) is refused', async () => {
    const port = srv.port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, '127.0.0.1', 'localhost']) {
      const r = await get(port, '/', { host });
      expect([host, r.status, r.body.toString()]).toEqual([host, 200, '<!doctype html><p>home</p>\n']);
    }
    for (const host of [
      'evil.example',
      `evil.example:${port}`,
      `localhost.evil.example:${port}`,
      `127.0.0.1.nip.io:${port}`,
      `127.0.0.1:${port + 1}`,
      `[::1]:${port}`,
      `127.0.0.1:${port}@evil.example`,
    ]) {
      const r = await get(port, '/', { host });
      expect([host, r.status, r.body.toString()]).toEqual([host, 403, 'forbidden: bad Host header\n']);
    }
  });

  test('a directory named like a file is not found, and the server lives on', async () => {
    for (const path of ['/trap/', '/trap', '/trap/index.html', '/trap/index.html/']) {
      const r = await get(srv.port, path);
      expect([path, r.status, r.body.toString()]).toEqual([path, 404, 'not found\n']);
    }
    expect((await get(srv.port, '/trap/index.html/x.txt')).body.toString()).toBe('x\n');
    const fifo = await get(srv.port, '/fifo', { timeout: 5000 });
    expect(fifo.status).toBe(404);
    expect(srv.child.exitCode).toBe(null);
    expect((await get(srv.port, '/')).status).toBe(200);
  });

  test('symbolic links leading out of the folder are refused; links inside it work', async () => {
    for (const path of ['/link-out', '/linkdir-out/secret.txt', '/linkdir-out/']) {
      const r = await get(srv.port, path);
      expect([path, r.status, r.body.toString()]).toEqual([
        path,
        403,
        'forbidden: the file is outside the served folder\n',
      ]);
    }
    for (const path of ['/../serve-outside/secret.txt', '/%2e%2e/etc/passwd']) {
      expect((await get(srv.port, path)).status, path).toBe(404); // normalised inside the folder first
    }
    const inside = await get(srv.port, '/link-in');
    expect([inside.status, inside.body.toString()]).toEqual([200, 'self.onmessage = () => {};\n']);
    expect((await get(srv.port, '/big.bin', { method: 'HEAD' })).headers['content-length']).toBe(String(BIG));
  });

  test('1,000 idle keep-alive connections: served meanwhile, closed after the idle timeout, no descriptor left', async () => {
    const t0 = Date.now();
    const { answered, closed } = await idleConnections(srv.port, 1000);
    expect(answered).toBe(500);
    const r = await get(srv.port, '/assets/worker-x.js');
    expect(r.status).toBe(200);
    expect(await closed).toBe(1000); // every one ended by the server: idle keep-alive, or no headers at all
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(await eventually(() => fdCount(srv.pid) <= baseline, 5000)).toBe(true);
    expect((await get(srv.port, '/')).status).toBe(200);
  }, 60_000);

  test('1,000 clients that reset mid-download of a 32 MB file leave no descriptor open', async () => {
    let started = 0,
      got = 0;
    const one = () =>
      new Promise((resolve) => {
        const s = connect(srv.port, '127.0.0.1');
        s.on('error', () => {});
        s.once('connect', () => s.write(`GET /big.bin HTTP/1.1\r\nHost: 127.0.0.1:${srv.port}\r\n\r\n`));
        s.once('data', (d) => {
          started++;
          got += d.length;
          s.resetAndDestroy(); // TCP RST, mid-download
        });
        s.once('close', resolve);
      });
    for (let batch = 0; batch < 20; batch++) await Promise.all(Array.from({ length: 50 }, one));
    expect(started).toBe(1000);
    expect(got).toBeLessThan(1000 * BIG);
    expect(await eventually(() => fdCount(srv.pid) <= baseline, 10_000)).toBe(true);
    const whole = await get(srv.port, '/big.bin', { timeout: 30_000 });
    expect([whole.status, whole.body.length]).toEqual([200, BIG]);
    expect(srv.child.exitCode).toBe(null);
  }, 60_000);

  test('out of descriptors (ulimit -n 128, 1,000 connections): accept and open fail, the server lives on', async () => {
    const low = await startServer(dir, 'ulimit -n 128');
    try {
      const { closed } = await idleConnections(low.port, 1000);
      // While they hold every descriptor: no crash; a request gets an answer or a closed connection.
      const during = await get(low.port, '/').then(
        (r) => r.status,
        (e) => e.code || 'error',
      );
      expect([200, 503, 'ECONNRESET', 'EPIPE']).toContain(during);
      await closed;
      expect(low.child.exitCode).toBe(null);
      const after = await get(low.port, '/');
      expect([after.status, after.body.toString()]).toEqual([200, '<!doctype html><p>home</p>\n']);
    } finally {
      low.child.kill();
    }
  }, 60_000);
});
