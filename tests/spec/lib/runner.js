'use strict';
// Runs unified-format test files against a server: discovery of what the server offers,
// the pre-run skip checks, and the execution of one test (initialData, entities, operations,
// expectEvents, outcome, clean-up).

const fs = require('fs');
const path = require('path');
const { MongoClient } = require('mongodb');
const { parseTestFile } = require('./args');
const { matchExact, MatchError } = require('./match');
const { requirementsSkipReason, schemaVersionSupported, kSupportedSchemaVersion } = require('./requirements');
const { EntityMap, createEntities, NotImplementedError } = require('./entities');
const { checkExpectedEvents } = require('./events');
const { runOperation, allOperations, isImplemented, savedEntityType } = require('./operations');
const { AssertionFailure, describeError } = require('./errors');
const { knownSkipReason } = require('./known_skips');

const kSearchIndexOps = new Set([
  'createSearchIndex', 'createSearchIndexes', 'dropSearchIndex', 'listSearchIndexes',
  'updateSearchIndex',
]);

// Lists every *.json under `root`, sorted, as { file, rel, folder }.
function findTestFiles(root) {
  const out = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.name.endsWith('.json')) out.push(p);
    }
  };
  walk(root);
  out.sort();
  return out.map((file) => {
    const rel = path.relative(root, file).split(path.sep).join('/');
    return { file, rel, folder: folderOf(rel) };
  });
}

// "crud/tests/unified/find.json" -> "crud"; the format's own tests keep their subfolder.
function folderOf(rel) {
  const parts = rel.split('/');
  if (parts[0] === 'unified-test-format') {
    const i = parts.indexOf('tests');
    return `unified-test-format/${parts[i + 1] || parts[1]}`;
  }
  return parts[0];
}

// "crud/tests/unified/find.json" -> "crud/find".
function fileKey(rel) {
  const parts = rel.replace(/\.json$/, '').split('/');
  return [parts[0] === 'unified-test-format' ? folderOf(rel) : parts[0], parts[parts.length - 1]]
    .join('/');
}

function testId(rel, description) {
  return `${fileKey(rel)}: ${description}`;
}

// What the server offers, as runOnRequirements sees it, plus how to reach it.
async function discoverServer(baseUri, { serverSelectionTimeoutMS = 10000 } = {}) {
  const probeUri = new URL(baseUri);
  probeUri.searchParams.set('directConnection', 'true');
  const probe = new MongoClient(probeUri.toString(), { serverSelectionTimeoutMS });
  const facts = {
    version: '0.0.0', topology: 'single', serverless: false, auth: false, csfle: false,
    uri: baseUri, warnings: [], failPointsSupported: false, failPointsReason: '',
  };
  try {
    await probe.connect();
    const admin = probe.db('admin');
    const hello = await admin.command({ hello: 1 }).catch(() => admin.command({ ismaster: 1 }));
    const build = await admin.command({ buildInfo: 1 });
    facts.hello = hello;
    facts.version = Array.isArray(build.versionArray)
      ? build.versionArray.slice(0, 3).map(Number).join('.')
      : String(build.version);
    if (hello.msg === 'isdbgrid') facts.topology = 'sharded';
    else if (hello.setName) facts.topology = 'replicaset';
    if (hello.setName) {
      const host = hello.me || (hello.hosts && hello.hosts[0]);
      const uri = new URL(baseUri);
      if (host) uri.host = host;
      uri.searchParams.set('replicaSet', hello.setName);
      facts.uri = uri.toString();
      if (hello.me && hello.hosts && !hello.hosts.includes(hello.me)) {
        facts.warnings.push(`hello.me ${hello.me} is not in hello.hosts ${JSON.stringify(hello.hosts)}`);
      }
    }
    try {
      await admin.command({ configureFailPoint: 'failCommand', mode: 'off' });
      facts.failPointsSupported = true;
    } catch (e) {
      facts.failPointsReason = describeError(e);
    }
  } finally {
    await probe.close();
  }
  // Make sure the replica-set URI works (hosts must name a reachable address); else fall back.
  if (facts.uri !== baseUri) {
    const check = new MongoClient(facts.uri, { serverSelectionTimeoutMS: 5000 });
    try {
      await check.db('admin').command({ ping: 1 });
    } catch (e) {
      facts.warnings.push(`replica-set discovery through ${facts.uri} failed (${describeError(e)}); ` +
        'falling back to directConnection=true');
      facts.uri = probeUri.toString();
    } finally {
      await check.close();
    }
  }
  try {
    require.resolve('mongodb-client-encryption');
    facts.csfle = false; // would also need crypt_shared or mongocryptd; not set up here
  } catch (_) {
    facts.csfle = false;
  }
  return facts;
}

// The object runOnRequirements are evaluated against.
function requirementsView(runner) {
  return {
    version: runner.facts.version,
    topology: runner.facts.topology,
    serverless: runner.facts.serverless,
    auth: runner.facts.auth,
    csfle: runner.facts.csfle,
    parameter: (name) => runner.serverParameter(name),
  };
}

class Runner {
  constructor({ facts, timeoutMs = 60000, serverSelectionTimeoutMS = 10000, beforeTest } = {}) {
    this.facts = facts;
    this.uri = facts.uri;
    this.failPointsSupported = facts.failPointsSupported;
    this.timeoutMs = timeoutMs;
    this.serverSelectionTimeoutMS = serverSelectionTimeoutMS;
    this.beforeTest = beforeTest;
    this.parameters = new Map();
    this.internalClient = new MongoClient(this.uri, { serverSelectionTimeoutMS });
    this.usesFailPoints = false;
  }

  async close() {
    await this.internalClient.close().catch(() => {});
  }

  async serverParameter(name) {
    if (!this.parameters.has(name)) {
      let value;
      try {
        const r = await this.internalClient.db('admin').command({ getParameter: 1, [name]: 1 });
        value = r[name];
      } catch (_) {
        value = undefined;
      }
      this.parameters.set(name, value);
    }
    return this.parameters.get(name);
  }

  // Whether the server answers a ping within `timeoutMs` on a fresh connection.
  async responsive(timeoutMs = 5000) {
    const client = new MongoClient(this.uri, {
      serverSelectionTimeoutMS: timeoutMs, socketTimeoutMS: timeoutMs, connectTimeoutMS: timeoutMs,
    });
    try {
      await client.db('admin').command({ ping: 1 });
      return true;
    } catch (_) {
      return false;
    } finally {
      client.close().catch(() => {});
    }
  }

  async killAllSessions() {
    try {
      await this.internalClient.db('admin').command({ killAllSessions: [] });
    } catch (_) {
      // Interrupted, Unauthorized or an unknown command: nothing more to do.
    }
  }

  // Why the test is skipped before it runs, or null.
  async skipReason(doc, test) {
    const view = requirementsView(this);
    const fileReason = await requirementsSkipReason(doc.runOnRequirements, view);
    if (fileReason) return fileReason;
    if (test.skipReason) return `skipReason: ${test.skipReason}`;
    const testReason = await requirementsSkipReason(test.runOnRequirements, view);
    if (testReason) return testReason;
    if (test.expectLogMessages) return 'runner: expectLogMessages not implemented';
    if (test.expectTracingMessages) return 'runner: expectTracingMessages not implemented';
    const types = new Map();
    const ops = allOperations(test.operations);
    const entitySpecs = [...(doc.createEntities || [])];
    for (const op of ops) {
      if (op.object === 'testRunner' && op.name === 'createEntities') {
        entitySpecs.push(...((op.arguments && op.arguments.entities) || []));
      }
    }
    for (const spec of entitySpecs) {
      const [type] = Object.keys(spec);
      const def = spec[type];
      types.set(def.id, type);
      if (type === 'clientEncryption' || (type === 'client' && def.autoEncryptOpts)) {
        return 'CSFLE: client-side encryption is not available to this runner';
      }
      if (type === 'client' && def.observeLogMessages) {
        return 'runner: observeLogMessages not implemented';
      }
      if (type === 'client' && def.observeTracingMessages) {
        return 'runner: observeTracingMessages not implemented';
      }
    }
    for (const op of ops) {
      const type = op.object === 'testRunner' ? 'testRunner' : types.get(op.object);
      if (!isImplemented(type, op.name)) {
        return `runner: operation ${op.name} not implemented`;
      }
      if (op.saveResultAsEntity) types.set(op.saveResultAsEntity, savedEntityType(op.name));
    }
    const usesFailPoints = ops.some((op) => op.object === 'testRunner' &&
      (op.name === 'failPoint' || op.name === 'targetedFailPoint'));
    if (usesFailPoints && !this.failPointsSupported) {
      return `server: configureFailPoint not supported (${this.facts.failPointsReason})`;
    }
    const atlasOnly = ops.some((op) => kSearchIndexOps.has(op.name) && op.expectError &&
      /atlas/i.test(String(op.expectError.errorContains || '')));
    if (atlasOnly) return 'Atlas-only: expects the error a non-Atlas server gives to search index commands';
    return null;
  }

  async setUpInitialData(doc) {
    const majority = { writeConcern: { w: 'majority' } };
    for (const data of doc.initialData || []) {
      const db = this.internalClient.db(data.databaseName);
      for (const name of [data.collectionName, `enxcol_.${data.collectionName}.esc`,
        `enxcol_.${data.collectionName}.ecoc`]) {
        try {
          await db.command({ drop: name, ...majority });
        } catch (e) {
          if (e.code !== 26 && name === data.collectionName) {
            throw new AssertionFailure(`initialData: drop ${name} failed: ${describeError(e)}`);
          }
        }
      }
      try {
        if (data.createOptions) {
          await db.command({ create: data.collectionName, ...data.createOptions, ...majority });
        }
        if (data.documents.length > 0) {
          await db.collection(data.collectionName).insertMany(data.documents, majority);
        } else if (!data.createOptions) {
          await db.command({ create: data.collectionName, ...majority });
        }
      } catch (e) {
        throw new AssertionFailure(`initialData: set-up of ${data.databaseName}.${data.collectionName} ` +
          `failed: ${describeError(e)}`);
      }
    }
  }

  async checkOutcome(test) {
    for (const data of test.outcome || []) {
      const coll = this.internalClient.db(data.databaseName).collection(data.collectionName, {
        readConcern: { level: 'local' }, readPreference: 'primary',
      });
      let docs;
      try {
        docs = await coll.find({}, { sort: { _id: 1 } }).toArray();
      } catch (e) {
        throw new AssertionFailure(`outcome: reading ${data.databaseName}.${data.collectionName} ` +
          `failed: ${describeError(e)}`);
      }
      try {
        matchExact(data.documents, docs, '');
      } catch (e) {
        if (e instanceof MatchError) {
          throw new AssertionFailure(`outcome mismatch in ${data.collectionName} at ${e.message}`);
        }
        throw e;
      }
    }
  }

  // Runs one test; returns { status: 'passed'|'failed'|'skipped', reason }.
  async runTest(doc, test) {
    if (!schemaVersionSupported(doc.schemaVersion)) {
      return {
        status: 'failed',
        reason: `runner: schemaVersion ${doc.schemaVersion} not supported (max ${kSupportedSchemaVersion})`,
      };
    }
    const skip = await this.skipReason(doc, test);
    if (skip) return { status: 'skipped', reason: skip };
    const ctx = {
      runner: this,
      entities: new EntityMap(),
      failPoints: [],
      usedTransactions: false,
      runOperation, // for operations that run others (withTransaction, runOnThread)
    };
    this.usesFailPoints = allOperations(test.operations).some((op) => op.name === 'failPoint');
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new AssertionFailure(`test timed out after ${this.timeoutMs} ms`)),
        this.timeoutMs);
    });
    const body = this.runTestBody(doc, test, ctx);
    body.catch(() => {});
    let outcome;
    try {
      await Promise.race([body, timeout]);
      outcome = { status: 'passed' };
    } catch (e) {
      if (e instanceof NotImplementedError) outcome = { status: 'skipped', reason: e.message };
      else outcome = { status: 'failed', reason: failureReason(e), error: e };
    } finally {
      clearTimeout(timer);
      // Closing clients talks to the server; a hung server must not stop the whole run.
      let cleanupTimer;
      await Promise.race([
        this.cleanUp(ctx, outcome && outcome.status !== 'passed').catch(() => {}),
        new Promise((resolve) => { cleanupTimer = setTimeout(resolve, 15000); }),
      ]);
      clearTimeout(cleanupTimer);
    }
    return outcome;
  }

  async runTestBody(doc, test, ctx) {
    await this.setUpInitialData(doc);
    await createEntities(doc.createEntities || [], ctx.entities, this);
    let index = 0;
    for (const op of test.operations) {
      await runOperation(op, ctx, { index });
      index++;
    }
    for (const client of ctx.entities.clients()) client.capturing = false;
    await this.disableFailPoints(ctx);
    for (const spec of test.expectEvents || []) {
      const client = ctx.entities.get(spec.client, 'client');
      try {
        checkExpectedEvents(spec, client, { entities: ctx.entities });
      } catch (e) {
        if (e instanceof MatchError) throw new AssertionFailure(e.message);
        throw e;
      }
    }
    await this.checkOutcome(test);
  }

  async disableFailPoints(ctx) {
    const names = ctx.failPoints.splice(0);
    for (const name of new Set(names)) {
      try {
        await this.internalClient.db('admin').command({ configureFailPoint: name, mode: 'off' });
      } catch (_) { /* reported by the test that set it */ }
    }
  }

  async cleanUp(ctx, failed) {
    await this.disableFailPoints(ctx);
    await ctx.entities.close();
    if (ctx.usedTransactions || failed) await this.killAllSessions();
  }

  // Runs every test of a file; awaits onResult({ id, description, status, reason, ms }) after each.
  async runFile(fileInfo, { filter, onResult }) {
    const text = fs.readFileSync(fileInfo.file, 'utf8');
    let doc;
    try {
      doc = parseTestFile(text);
    } catch (e) {
      await onResult({ id: testId(fileInfo.rel, '(file)'), description: '(file)', status: 'failed',
        reason: `runner: cannot parse ${fileInfo.rel}: ${e.message}`, ms: 0 });
      return;
    }
    const seen = new Map();
    doc.tests.forEach((test, i) => {
      const n = (seen.get(test.description) || 0) + 1;
      seen.set(test.description, n);
      test.uniqueDescription = n > 1 ? `${test.description} (${n})` : test.description;
      test.index = i;
    });
    for (const t of doc.tests) {
      const id = testId(fileInfo.rel, t.uniqueDescription);
      if (filter && !filter(id, fileInfo)) continue;
      if (this.beforeTest) await this.beforeTest(id);
      // A fresh copy per test: the driver adds _id to inserted documents.
      const fresh = parseTestFile(text);
      const started = Date.now();
      const known = knownSkipReason(id);
      const result = known ? { status: 'skipped', reason: known }
        : await this.runTest(fresh, fresh.tests[t.index]);
      await onResult({ id, description: t.uniqueDescription, ...result, ms: Date.now() - started });
    }
  }
}

function failureReason(e) {
  if (!e) return 'unknown error';
  if (e instanceof AssertionFailure || e.name === 'OperationError' || e instanceof MatchError) {
    return e.message;
  }
  return `unexpected error: ${describeError(e)}`;
}

module.exports = {
  Runner,
  discoverServer,
  findTestFiles,
  folderOf,
  fileKey,
  testId,
  failureReason,
};
