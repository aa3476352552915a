// Starts a real quarryd for a node:test file and stops it by PID (see ../quarry_server.py for the
// Python twin): 127.0.0.1 only, a free port, a fresh --dbpath in a temp dir.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, openSync, readFileSync, readdirSync,
  rmSync, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach } from 'node:test';
import { fileURLToPath } from 'node:url';

import { MongoClient } from 'mongodb';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

function isExecutable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

// $QUARRY_BINARY, else build/src/main/quarryd, else the newest build*/src/main/quarryd.
export function findBinary() {
  if (process.env.QUARRY_BINARY) return path.resolve(process.env.QUARRY_BINARY);
  const main = path.join(REPO_ROOT, 'build', 'src', 'main', 'quarryd');
  if (isExecutable(main)) return main;
  const others = readdirSync(REPO_ROOT)
    .filter((d) => d.startsWith('build'))
    .map((d) => path.join(REPO_ROOT, d, 'src', 'main', 'quarryd'))
    .filter(isExecutable)
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  return others[0] ?? null;
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function canConnect(port) {
  return new Promise((resolve) => {
    const sock = net.connect({ host: '127.0.0.1', port });
    sock.once('connect', () => { sock.destroy(); resolve(true); });
    sock.once('error', () => resolve(false));
  });
}

const live = new Set();
process.on('exit', () => {
  for (const child of live) {
    try { process.kill(child.pid, 'SIGKILL'); } catch { /* already gone */ }
  }
});

export class QuarryServer {
  host = '127.0.0.1';

  // `extraArgs`: more quarryd flags, after the defaults (e.g. ['--auth'], --tlsMode ...).
  constructor(name, { extraArgs = [] } = {}) {
    this.extraArgs = extraArgs;
    this.binary = findBinary();
    if (!this.binary) throw new Error('no quarryd binary: set QUARRY_BINARY or build target quarryd');
    this.dir = mkdtempSync(path.join(os.tmpdir(), `quarry-node-${name}-`));
    this.dbpath = path.join(this.dir, 'db');
    this.logPath = path.join(this.dir, 'quarryd.log');
  }

  uri(options = '') {
    return `mongodb://${this.host}:${this.port}/${options ? `?${options}` : ''}`;
  }

  logTail(lines = 40) {
    if (!existsSync(this.logPath)) return '(no log)';
    return readFileSync(this.logPath, 'utf8').split('\n').slice(-lines).join('\n');
  }

  async start() {
    this.port ??= await freePort();
    const log = openSync(this.logPath, 'a');
    this.child = spawn(this.binary, ['--port', String(this.port), '--bind_ip', this.host,
      '--dbpath', this.dbpath, '--advertise-host', this.host, ...this.extraArgs],
    { stdio: ['ignore', log, log] });
    live.add(this.child);
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => {
      live.delete(this.child);
      resolve({ code, signal });
    }));
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null) {
        throw new Error(`quarryd exited with ${this.child.exitCode}; log:\n${this.logTail()}`);
      }
      if (await canConnect(this.port)) return this;
      await new Promise((r) => setTimeout(r, 50));
    }
    await this.stop();
    throw new Error(`quarryd did not accept connections within 30 s; log:\n${this.logTail()}`);
  }

  // SIGTERM, then SIGKILL after 20 s. Resolves to {code, signal}.
  async stop() {
    if (!this.child) return null;
    if (this.child.exitCode === null && this.child.signalCode === null) {
      process.kill(this.child.pid, 'SIGTERM');
      const timer = setTimeout(() => {
        try { process.kill(this.child.pid, 'SIGKILL'); } catch { /* gone */ }
      }, 20_000);
      const result = await this.exited;
      clearTimeout(timer);
      rmSync(this.dir, { recursive: true, force: true });
      return result;
    }
    const result = await this.exited;
    rmSync(this.dir, { recursive: true, force: true });
    return result;
  }
}

// One quarryd for the calling test file, started in `before` and stopped by PID in `after`
// (which also checks it exits with status 0 on SIGTERM). `connect(uriOptions, clientOptions)`
// opens a client that `after` closes. With `dbPrefix`, `client` is connected in `before` and
// `db` is a fresh database before each test; `setUp(fixture)` runs once the server is up (put
// data shared by the file's tests there; `extraArgs` are more quarryd flags). Read the fields
// inside hooks and tests: they are set once `before` has run.
export function serveThisFile(name, { dbPrefix, setUp, extraArgs } = {}) {
  const fixture = { server: new QuarryServer(name, { extraArgs }), client: null, db: null };
  const clients = [];
  fixture.connect = async (uriOptions = '', clientOptions = {}) => {
    const c = new MongoClient(fixture.server.uri(uriOptions),
      { serverSelectionTimeoutMS: 5000, ...clientOptions });
    clients.push(c);
    await c.connect();
    return c;
  };
  before(async () => {
    await fixture.server.start();
    if (dbPrefix) fixture.client = await fixture.connect();
    if (setUp) await setUp(fixture);
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    const status = await fixture.server.stop();
    assert.deepEqual(status, { code: 0, signal: null }, 'SIGTERM must end quarryd with status 0');
  });
  if (dbPrefix) {
    let counter = 0;
    beforeEach(() => {
      fixture.db = fixture.client.db(`${dbPrefix}_${counter++}`);
    });
  }
  return fixture;
}
