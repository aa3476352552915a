// End to end: the change-stream chat example (examples/change-stream-chat) against a real quarryd,
// seen through a real browser. quarryd and the example app run as child processes; Debian's
// chromium is driven by playwright-core; messages are written by pymongo, as another client would.
// Each insert or update must show up in the page's <ul id="messages">, in order, within 1 s.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { after, before, describe, test } from 'node:test';

import { chromium } from 'playwright-core';

import { QuarryServer, REPO_ROOT, freePort } from '../integration/node/quarry_server.mjs';

const CHROMIUM = process.env.QUARRY_CHROMIUM || '/usr/bin/chromium';
const PYTHON = '/usr/bin/python3';
const EXAMPLE_DIR = path.join(REPO_ROOT, 'examples', 'change-stream-chat');
const APPEAR_MS = 1000;

let server;
let app;
let appLog = '';
let context;
let page;
let writer;
let userDataDir;

// Resolves once `predicate(appLog)` holds, rejects if the app exits or `ms` pass.
function waitForAppLog(predicate, what, ms = 20_000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`example app: no "${what}" within ${ms} ms; output:\n${appLog}`)), ms);
    const check = () => { if (predicate(appLog)) done(); };
    const onExit = (code, signal) => done(new Error(`example app exited (${code ?? signal}) before "${what}"; output:\n${appLog}`));
    function done(err) {
      clearTimeout(timer);
      app.stdout.off('data', check);
      app.stderr.off('data', check);
      app.off('exit', onExit);
      if (err) reject(err); else resolve();
    }
    app.stdout.on('data', check);
    app.stderr.on('data', check);
    app.once('exit', onExit);
    check();
  });
}

// A long-lived pymongo client that performs one write per JSON line on stdin and answers each
// with a JSON line once the server acknowledged it, so the 1 s budget starts at the acknowledgement.
const WRITER_PY = `
import json, sys
from bson import ObjectId
from pymongo import MongoClient
messages = MongoClient(sys.argv[1], serverSelectionTimeoutMS=10000).chat.messages
for line in sys.stdin:
    cmd = json.loads(line)
    if cmd["op"] == "insert":
        reply = {"id": str(messages.insert_one({"message": cmd["message"]}).inserted_id)}
    elif cmd["op"] == "update":
        r = messages.update_one({"_id": ObjectId(cmd["id"])}, {"$set": {"message": cmd["message"]}})
        reply = {"modified": r.modified_count}
    else:
        reply = {"error": "unknown op"}
    print(json.dumps(reply), flush=True)
`;

class PyWriter {
  constructor(uri) {
    this.proc = spawn(PYTHON, ['-c', WRITER_PY, uri], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.stderr = '';
    this.proc.stderr.on('data', (d) => { this.stderr += d; });
    this.lines = readline.createInterface({ input: this.proc.stdout })[Symbol.asyncIterator]();
  }

  async send(cmd) {
    this.proc.stdin.write(`${JSON.stringify(cmd)}\n`);
    const { value, done } = await this.lines.next();
    if (done) throw new Error(`pymongo writer ended; stderr:\n${this.stderr}`);
    return JSON.parse(value);
  }

  insert(message) { return this.send({ op: 'insert', message }); }
  update(id, message) { return this.send({ op: 'update', id, message }); }

  async close() {
    this.proc.stdin.end();
    if (this.proc.exitCode === null) await new Promise((r) => this.proc.once('exit', r));
  }
}

async function listedMessages() {
  return page.$$eval('#messages li', (items) => items.map((li) => li.textContent));
}

// Waits until the page lists exactly `expected`, at most APPEAR_MS after the write was acknowledged.
async function expectMessages(expected) {
  const started = Date.now();
  try {
    await page.waitForFunction(
      (want) => JSON.stringify([...document.querySelectorAll('#messages li')].map((li) => li.textContent)) === JSON.stringify(want),
      expected, { timeout: APPEAR_MS, polling: 20 });
  } catch (err) {
    assert.deepEqual(await listedMessages(), expected,
      `the page did not list ${JSON.stringify(expected)} within ${APPEAR_MS} ms (${err.message.split('\n')[0]})`);
  }
  return Date.now() - started;
}

before(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: the e2e suite needs Debian's chromium ` +
      '(apt-get install chromium; scripts/install-deps.sh installs it)');
  }
  if (!existsSync(path.join(EXAMPLE_DIR, 'node_modules', 'socket.io'))) {
    throw new Error(`${EXAMPLE_DIR}/node_modules is missing: run \`npm ci\` there ` +
      '(scripts/test.sh does it for the e2e suite)');
  }

  server = new QuarryServer('e2e-chat');
  await server.start();
  const mongoUri = server.uri('replicaSet=rs0');

  const appPort = await freePort();
  app = spawn(process.execPath, ['index.js'], {
    cwd: EXAMPLE_DIR,
    env: { ...process.env, MONGODB_URI: mongoUri, PORT: String(appPort) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  app.stdout.on('data', (d) => { appLog += d; });
  app.stderr.on('data', (d) => { appLog += d; });
  await waitForAppLog((log) => log.includes('chat listening on') && log.includes('change stream open'),
    'listening + change stream open');

  userDataDir = mkdtempSync(path.join(os.tmpdir(), 'quarry-e2e-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    timeout: 60_000,
  });
  page = context.pages()[0] ?? await context.newPage();
  await page.goto(`http://127.0.0.1:${appPort}/`);
  // The page's socket.io connection must be up before the first write, or its event is lost.
  await page.waitForFunction(() => typeof socket !== 'undefined' && socket.connected, null, { timeout: 10_000 });
  await waitForAppLog((log) => log.includes('browser connected'), 'browser connected', 10_000);

  writer = new PyWriter(mongoUri);
});

after(async () => {
  await writer?.close().catch(() => {});
  await context?.close().catch(() => {});
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  if (app && app.exitCode === null && app.signalCode === null) {
    const exited = new Promise((r) => app.once('exit', r));
    process.kill(app.pid, 'SIGTERM');
    const timer = setTimeout(() => { try { process.kill(app.pid, 'SIGKILL'); } catch { /* gone */ } }, 10_000);
    await exited;
    clearTimeout(timer);
  }
  const status = await server?.stop();
  if (status) assert.deepEqual(status, { code: 0, signal: null }, 'SIGTERM must end quarryd with status 0');
});

describe('change-stream chat in chromium', () => {
  const shown = [];
  let firstId;

  test('the page starts with an empty message list', async () => {
    assert.equal(await page.title(), 'Change stream chat');
    assert.deepEqual(await listedMessages(), []);
  });

  test('an inserted message appears on the page within 1 s', async (t) => {
    firstId = (await writer.insert('hello from pymongo')).id;
    shown.push('hello from pymongo');
    const ms = await expectMessages(shown);
    t.diagnostic(`appeared ${ms} ms after pymongo's insert was acknowledged`);
  });

  test('an update of the message appears as the next list item within 1 s', async () => {
    const reply = await writer.update(firstId, 'hello again (edited)');
    assert.equal(reply.modified, 1);
    shown.push('hello again (edited)');
    await expectMessages(shown);
  });

  test('several inserts and updates appear one by one, in order', async () => {
    for (let i = 1; i <= 5; i++) {
      const { id } = await writer.insert(`message ${i}`);
      shown.push(`message ${i}`);
      await expectMessages(shown);
      await writer.update(id, `message ${i}, edited`);
      shown.push(`message ${i}, edited`);
      await expectMessages(shown);
    }
  });

  test('a burst of writes without waiting arrives complete and in order', async () => {
    const burst = [];
    for (let i = 1; i <= 10; i++) {
      await writer.insert(`burst ${i}`);
      burst.push(`burst ${i}`);
    }
    shown.push(...burst);
    await expectMessages(shown);
  });
});
