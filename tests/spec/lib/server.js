'use strict';
// Finding, starting and stopping a quarryd for the spec run.

const fs = require('fs');
const os = require('os');
const path = require('path');
const net = require('net');
const { spawn, spawnSync } = require('child_process');

// QUARRY_BINARY, else <repo>/build/src/main/quarryd, else the first existing
// <repo>/build*/src/main/quarryd (alphabetical). null if none exists.
function findBinary(repoRoot, env = process.env) {
  if (env.QUARRY_BINARY) return fs.existsSync(env.QUARRY_BINARY) ? env.QUARRY_BINARY : null;
  const preferred = path.join(repoRoot, 'build', 'src', 'main', 'quarryd');
  if (fs.existsSync(preferred)) return preferred;
  const builds = fs.readdirSync(repoRoot).filter((d) => d.startsWith('build')).sort();
  for (const dir of builds) {
    const candidate = path.join(repoRoot, dir, 'src', 'main', 'quarryd');
    if (fs.existsSync(candidate)) return candidate;
  }
  return null;
}

function helpText(binary) {
  const r = spawnSync(binary, ['--help'], { encoding: 'utf8', timeout: 10000 });
  return `${r.stdout || ''}\n${r.stderr || ''}`;
}

function hasFlag(help, flag) {
  return new RegExp(`(^|[\\s,\\[])${flag.replace(/[-]/g, '\\-')}(?![A-Za-z0-9_-])`, 'm').test(help);
}

// Command-line arguments for quarryd, using the flag spellings its --help lists.
function serverArguments(help, port, dbpath) {
  const args = [];
  const first = (...names) => names.find((n) => hasFlag(help, n));
  args.push(first('--port', '-p') || '--port', String(port));
  args.push(first('--dbpath', '--db-path', '--data-dir', '--datadir') || '--dbpath', dbpath);
  if (hasFlag(help, '--enableTestCommands')) {
    args.push('--enableTestCommands');
  } else if (/enableTestCommands/.test(help) && hasFlag(help, '--setParameter')) {
    args.push('--setParameter', 'enableTestCommands=1');
  }
  return args;
}

function freePort() {
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
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

function tail(file, lines = 20) {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch (_) {
    return '';
  }
}

// One quarryd process with its temporary directory; restartable after a crash.
class QuarryServer {
  constructor(binary) {
    this.binary = binary;
    this.help = helpText(binary);
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-spec-'));
    this.logFile = path.join(this.dir, 'quarryd.log');
    this.child = null;
    this.port = null;
    this.exitInfo = null;
    this.starts = 0;
  }

  get alive() {
    return this.child !== null && this.exitInfo === null;
  }

  get args() {
    return serverArguments(this.help, this.port, this.dbpath);
  }

  async start(timeoutMs = 30000) {
    if (this.port === null) this.port = await freePort();
    this.starts++;
    this.dbpath = path.join(this.dir, `db${this.starts}`);
    fs.mkdirSync(this.dbpath, { recursive: true });
    const log = fs.openSync(this.logFile, 'a');
    this.exitInfo = null;
    this.child = spawn(this.binary, this.args, { stdio: ['ignore', log, log] });
    fs.closeSync(log);
    const child = this.child;
    child.on('exit', (code, signal) => {
      if (this.child === child) this.exitInfo = { code, signal };
    });
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.exitInfo) {
        throw new Error(`quarryd exited during start-up (${JSON.stringify(this.exitInfo)}):\n` +
          tail(this.logFile));
      }
      if (await canConnect(this.port)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`quarryd did not listen on port ${this.port} within ${timeoutMs} ms`);
  }

  async stop() {
    const child = this.child;
    if (!child || this.exitInfo) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => { try { child.kill('SIGKILL'); } catch (_) { /* gone */ } }, 10000);
    await exited;
    clearTimeout(timer);
  }

  cleanup({ keepLog = false } = {}) {
    try {
      if (keepLog) {
        for (const entry of fs.readdirSync(this.dir)) {
          if (entry !== 'quarryd.log') fs.rmSync(path.join(this.dir, entry), { recursive: true, force: true });
        }
      } else {
        fs.rmSync(this.dir, { recursive: true, force: true });
      }
    } catch (_) { /* best effort */ }
  }

  logTail(lines) {
    return tail(this.logFile, lines);
  }
}

module.exports = { findBinary, helpText, hasFlag, serverArguments, freePort, QuarryServer };
