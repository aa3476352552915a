// Unit tests of the spec runner's own logic (no server needed): node --test tests/spec/
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const {
  BSON, MongoServerError, MongoNetworkError, MongoBulkWriteError,
} = require('mongodb');
const { match, matchExact, MatchError, hasType } = require('./lib/match.js');
const {
  compareVersions, schemaVersionSupported, requirementsSkipReason,
} = require('./lib/requirements.js');
const { parseTestFile, toNative, nativeArguments } = require('./lib/args.js');
const { checkExpectedError, AssertionFailure, describeError } = require('./lib/errors.js');
const { checkExpectedEvents } = require('./lib/events.js');
const { EntityMap, buildUri, isSensitive } = require('./lib/entities.js');
const { updateResult, bulkWriteResult, isImplemented, allOperations } = require('./lib/operations.js');
const { Runner, findTestFiles, folderOf, fileKey, testId } = require('./lib/runner.js');
const report = require('./lib/report.js');
const { serverArguments, hasFlag } = require('./lib/server.js');

const { Int32, Long, Double, Decimal128, ObjectId, Binary, EJSON } = BSON;
const ej = (text) => parseTestFile(text);
const matches = (expected, actual, ctx = {}, isRoot = true) => {
  try {
    match(expected, actual, ctx, isRoot);
    return true;
  } catch (e) {
    if (e instanceof MatchError) return false;
    throw e;
  }
};

// ------------------------------------------------------------------ matching

test('root-level documents may have extra fields, nested documents may not', () => {
  assert.ok(matches({ x: 1 }, { x: 1, y: 1 }));
  assert.ok(!matches({ x: 1, y: 1 }, { x: 1 }));
  assert.ok(!matches({ x: { y: 1 } }, { x: { y: 1, z: 1 } }));
  assert.ok(matches({ x: { y: 1 } }, { x: { y: 1 } }));
});

test('key order does not matter and arrays must have the same length', () => {
  assert.ok(matches({ x: 1, y: 1 }, { y: 1, x: 1 }));
  assert.ok(!matches([1, 2, 3], [1, 2, 3, 4]));
  assert.ok(!matches([1, 2], [2, 1]));
});

test('numbers compare by value across int32, int64 and double but not decimal', () => {
  assert.ok(matches(new Int32(1), 1.0));
  assert.ok(matches(Long.fromNumber(5), 5));
  assert.ok(matches(new Double(2), new Int32(2)));
  assert.ok(!matches(1, 1.5));
  assert.ok(matches(Long.fromString('9223372036854775807'), Long.fromString('9223372036854775807')));
  assert.ok(!matches(Long.fromString('9007199254740993'), 9007199254740992));
  assert.ok(!matches(Decimal128.fromString('1'), 1));
  assert.ok(!matches(1, true));
  assert.ok(!matches('1', 1));
});

test('array elements of cursor results are root-level documents, of distinct are not', () => {
  const expected = [{ x: 1 }, { x: 2 }];
  const actual = [{ x: 1, y: 1 }, { x: 2, y: 2 }];
  assert.ok(matches(expected, actual, { rootArrayElements: true }));
  assert.ok(!matches(expected, actual, {}));
});

test('$$exists asserts presence or absence of a key', () => {
  assert.ok(matches({ a: { $$exists: true } }, { a: null }));
  assert.ok(!matches({ a: { $$exists: true } }, { b: 1 }));
  assert.ok(matches({ a: { $$exists: false } }, { b: 1 }));
  assert.ok(!matches({ a: { $$exists: false } }, { a: 1 }));
});

test('$$type accepts one name or a list, including the number alias', () => {
  assert.ok(matches({ a: { $$type: 'string' } }, { a: 'x' }));
  assert.ok(matches({ a: { $$type: ['int', 'long'] } }, { a: Long.fromNumber(3) }));
  assert.ok(matches({ a: { $$type: 'number' } }, { a: Decimal128.fromString('3.1') }));
  assert.ok(matches({ a: { $$type: 'number' } }, { a: 2.5 }));
  assert.ok(!matches({ a: { $$type: 'int' } }, { a: 2.5 }));
  assert.ok(!matches({ a: { $$type: 'string' } }, {}));
  assert.ok(matches({ a: { $$type: 'objectId' } }, { a: new ObjectId() }));
  assert.ok(matches({ a: { $$type: 'array' } }, { a: [1] }));
  assert.ok(matches({ a: { $$type: 'object' } }, { a: { b: 1 } }));
  assert.ok(matches({ a: { $$type: 'date' } }, { a: new Date() }));
  assert.ok(matches({ a: { $$type: 'binData' } }, { a: new Binary(Buffer.from('ab')) }));
  assert.ok(hasType(new Int32(1), 'int'));
  assert.ok(!hasType(new Double(1), 'int'));
  assert.throws(() => hasType(1, 'integer'), MatchError);
});

test('$$unsetOrMatches accepts an absent value or a matching one', () => {
  const expected = { insertedId: { $$unsetOrMatches: 2 } };
  assert.ok(matches(expected, {}));
  assert.ok(matches(expected, { insertedId: 2 }));
  assert.ok(!matches(expected, { insertedId: 3 }));
  assert.ok(matches({ $$unsetOrMatches: { insertedId: 1 } }, undefined));
  assert.ok(matches({ $$unsetOrMatches: { insertedId: 1 } }, { insertedId: 1, extra: true }));
  assert.ok(!matches({ $$unsetOrMatches: { insertedId: 1 } }, { insertedId: 2 }));
  // Does not make a nested document root-level.
  assert.ok(!matches({ a: { $$unsetOrMatches: { b: 1 } } }, { a: { b: 1, c: 2 } }));
});

test('$$matchesEntity and $$sessionLsid use the entity map', () => {
  const entities = new EntityMap();
  const oid = new ObjectId();
  entities.set('id0', 'bson', oid);
  const lsid = { id: new Binary(Buffer.alloc(16, 7), 4) };
  entities.set('session0', 'session', { id: lsid });
  assert.ok(matches({ _id: { $$matchesEntity: 'id0' } }, { _id: oid }, { entities }));
  assert.ok(!matches({ _id: { $$matchesEntity: 'id0' } }, { _id: new ObjectId() }, { entities }));
  const actualLsid = { id: new Binary(Buffer.alloc(16, 7), 4) };
  assert.ok(matches({ lsid: { $$sessionLsid: 'session0' } }, { lsid: actualLsid }, { entities }));
  assert.ok(!matches({ lsid: { $$sessionLsid: 'session0' } },
    { lsid: { id: new Binary(Buffer.alloc(16, 8), 4) } }, { entities }));
  assert.throws(() => match({ a: { $$matchesEntity: 'nope' } }, { a: 1 }, { entities }), /not defined/);
});

test('$$lte, $$matchAsDocument and $$matchAsRoot', () => {
  assert.ok(matches({ x: { $$lte: 2 } }, { x: 2.0 }));
  assert.ok(matches({ x: { $$lte: Long.fromNumber(3) } }, { x: 0 }));
  assert.ok(!matches({ x: { $$lte: 2.1 } }, { x: 2.2 }));
  assert.ok(matches({ j: { $$matchAsDocument: { x: 1, y: 2 } } }, { j: '{ "x": 1, "y": 2.0 }' }));
  assert.ok(!matches({ j: { $$matchAsDocument: { x: 1 } } }, { j: '{ "x": 1, "y": 2 }' }));
  assert.ok(matches({ j: { $$matchAsDocument: { x: { $$type: 'objectId' } } } },
    { j: '{ "x": { "$oid": "57e193d7a9cc81b4027498b5" } }' }));
  assert.ok(matches({ j: { $$matchAsDocument: { $$matchAsRoot: { x: 1 } } } }, { j: '{"x": 1, "y": 2}' }));
  assert.ok(matches({ x: { $$matchAsRoot: { y: 2 } } }, { x: { y: 2, z: 3 } }));
});

test('special values compare by content', () => {
  const oid = new ObjectId();
  assert.ok(matches(new ObjectId(oid.toHexString()), oid));
  assert.ok(matches(new Date(5), new Date(5)));
  assert.ok(!matches(new Date(5), new Date(6)));
  assert.ok(matches(new Binary(Buffer.from('abc'), 0), new Binary(Buffer.from('abc'), 0)));
  assert.ok(!matches(new Binary(Buffer.from('abc'), 0), new Binary(Buffer.from('abc'), 4)));
  assert.ok(matches(null, null));
  assert.ok(!matches({ a: null }, {}));
  assert.ok(matches(new BSON.BSONRegExp('^a', 'im'), new BSON.BSONRegExp('^a', 'mi')));
});

test('outcome comparison is exact: no extra fields even at the root', () => {
  assert.doesNotThrow(() => matchExact([{ _id: 1, x: new Int32(2) }], [{ x: 2, _id: 1 }], ''));
  assert.throws(() => matchExact([{ _id: 1 }], [{ _id: 1, x: 1 }], ''), MatchError);
  assert.throws(() => matchExact([{ _id: 1 }], [], ''), /expected 1 elements, got 0/);
});

// ------------------------------------------------------------------ test files and arguments

test('test files keep their BSON number types; driver options become JS numbers', () => {
  const doc = ej('{"a": 1, "b": 1.5, "c": {"$numberLong": "5"}, "d": {"$numberDouble": "1.0"}}');
  assert.equal(doc.a._bsontype, 'Int32');
  assert.equal(doc.b._bsontype, 'Double');
  assert.equal(doc.c._bsontype, 'Long');
  assert.equal(doc.d._bsontype, 'Double');
  const args = nativeArguments(ej('{"filter": {"x": 1}, "limit": 2, "writeConcern": {"w": 1}}'));
  assert.equal(args.filter.x._bsontype, 'Int32');
  assert.equal(args.limit, 2);
  assert.deepEqual(args.writeConcern, { w: 1 });
  assert.deepEqual(toNative([new Int32(1), { a: new Double(2.5) }]), [1, { a: 2.5 }]);
});

test('client URIs take uriOptions over the base connection string', () => {
  const uri = buildUri('mongodb://127.0.0.1:1234/?replicaSet=rs0&w=1', { w: 'majority', appName: 'x' });
  const u = new URL(uri);
  assert.equal(u.searchParams.get('w'), 'majority');
  assert.equal(u.searchParams.get('appName'), 'x');
  assert.equal(u.searchParams.get('replicaSet'), 'rs0');
  const direct = new URL(buildUri('mongodb://h:1/?replicaSet=rs0', { directConnection: true }));
  assert.equal(direct.searchParams.get('replicaSet'), null);
  assert.equal(direct.searchParams.get('directConnection'), 'true');
});

test('entity map rejects duplicates, unknown names and wrong types', () => {
  const m = new EntityMap();
  m.set('client0', 'client', {});
  assert.throws(() => m.set('client0', 'client', {}), /already exists/);
  assert.throws(() => m.get('client1'), /not defined/);
  assert.throws(() => m.get('client0', 'session'), /is a client, not a session/);
});

test('sensitive commands are recognised, including redacted hello', () => {
  assert.ok(isSensitive({ commandName: 'saslStart', command: { saslStart: 1 } }));
  assert.ok(isSensitive({ commandName: 'hello', command: {} }));
  assert.ok(!isSensitive({ commandName: 'hello', command: { hello: 1 } }));
  assert.ok(!isSensitive({ commandName: 'find', command: {} }));
});

test('update results drop a null upsertedId; bulk results keep counts and id maps', () => {
  assert.deepEqual(updateResult({ matchedCount: 1, modifiedCount: 1, upsertedCount: 0, upsertedId: null }),
    { matchedCount: 1, modifiedCount: 1, upsertedCount: 0 });
  const r = bulkWriteResult({ insertedCount: 1, matchedCount: 0, modifiedCount: 0, deletedCount: 0,
    upsertedCount: 0, upsertedIds: {}, insertedIds: { 0: 1 } });
  assert.deepEqual(r.insertedIds, { 0: 1 });
});

// ------------------------------------------------------------------ requirements

test('versions compare numerically component by component', () => {
  assert.equal(compareVersions('4.0.10', '4.0.9'), 1);
  assert.equal(compareVersions('3.6', '4.0.10'), -1);
  assert.equal(compareVersions('4.2', '4.2.0'), 0);
  assert.equal(compareVersions('4.9.0-alpha4-271-g7d5cf02', '4.9'), 0);
  assert.ok(schemaVersionSupported('1.0'));
  assert.ok(schemaVersionSupported('1.23'));
  assert.ok(!schemaVersionSupported('1.99'));
  assert.ok(!schemaVersionSupported('2.0'));
});

const quarry = {
  version: '7.0.0', topology: 'replicaset', serverless: false, auth: false, csfle: false,
  parameter: async (name) => ({ enableTestCommands: true, x: 5 })[name],
};

test('runOnRequirements: any one satisfied requirement runs the test', async () => {
  assert.equal(await requirementsSkipReason(undefined, quarry), null);
  assert.equal(await requirementsSkipReason([{ minServerVersion: '4.0', topologies: ['replicaset'] }], quarry), null);
  assert.equal(await requirementsSkipReason([
    { minServerVersion: '4.1.7', topologies: ['sharded'] },
    { minServerVersion: '4.0', topologies: ['single', 'replicaset'] },
  ], quarry), null);
  assert.match(await requirementsSkipReason([{ topologies: ['sharded', 'load-balanced'] }], quarry),
    /requires topology sharded\|load-balanced/);
  assert.match(await requirementsSkipReason([{ minServerVersion: '8.0' }], quarry), /requires server >= 8.0/);
  assert.match(await requirementsSkipReason([{ maxServerVersion: '6.1.99' }], quarry), /<= 6.1.99/);
  assert.match(await requirementsSkipReason([{ serverless: 'require' }], quarry), /Serverless/);
  assert.equal(await requirementsSkipReason([{ serverless: 'forbid' }], quarry), null);
  assert.match(await requirementsSkipReason([{ auth: true }], quarry), /authentication/);
  assert.equal(await requirementsSkipReason([{ auth: false }], quarry), null);
  assert.match(await requirementsSkipReason([{ csfle: true }], quarry), /CSFLE/);
  assert.equal(await requirementsSkipReason([{ serverParameters: { x: new Int32(5) } }], quarry), null);
  assert.match(await requirementsSkipReason([{ serverParameters: { x: 6 } }], quarry), /server parameter x/);
  assert.match(await requirementsSkipReason([{ serverParameters: { nope: true } }], quarry), /has none/);
});

// ------------------------------------------------------------------ expected errors

test('expectError checks code, code name, message, labels and client/server origin', () => {
  const err = new MongoServerError({
    message: 'E11000 duplicate key error', errmsg: 'E11000 duplicate key error', code: 11000,
    codeName: 'DuplicateKey', errorLabels: ['RetryableWriteError'],
  });
  const ctx = { entities: new EntityMap() };
  checkExpectedError({ isError: true, isClientError: false, errorCode: 11000,
    errorCodeName: 'duplicatekey', errorContains: 'DUPLICATE key',
    errorLabelsContain: ['RetryableWriteError'], errorLabelsOmit: ['TransientTransactionError'],
    errorResponse: { code: 11000, errmsg: { $$type: 'string' } } }, err, ctx);
  assert.throws(() => checkExpectedError({ errorCode: 2 }, err, ctx), AssertionFailure);
  assert.throws(() => checkExpectedError({ isClientError: true }, err, ctx), /client error/);
  assert.throws(() => checkExpectedError({ errorLabelsOmit: ['RetryableWriteError'] }, err, ctx), AssertionFailure);
  const network = new MongoNetworkError('connection closed');
  checkExpectedError({ isClientError: true }, network, ctx);
  assert.throws(() => checkExpectedError({ errorCode: 1 }, network, ctx), AssertionFailure);
  assert.match(describeError(err), /MongoServerError 11000 DuplicateKey/);
});

test('bulk write errors are searched for message and code; their result is matched', () => {
  const err = new MongoBulkWriteError(
    { message: 'write failed', code: 11000, writeErrors: [{ index: 1, code: 11000, errmsg: 'E11000 dup key' }] },
    { insertedCount: 1, matchedCount: 0, modifiedCount: 0, deletedCount: 0, upsertedCount: 0,
      upsertedIds: {}, insertedIds: { 0: 1 } });
  const ctx = { entities: new EntityMap(), errorResult: (e) => bulkWriteResult(e.result) };
  checkExpectedError({ errorContains: 'E11000', expectResult: { $$unsetOrMatches: { insertedCount: 1 } } }, err, ctx);
  assert.throws(() => checkExpectedError({ expectResult: { insertedCount: 2 } }, err, ctx), /expectResult/);
});

// ------------------------------------------------------------------ events

function fakeClient(events) {
  return { eventsOfType: (type) => events.filter((e) => e.type === type) };
}

test('expectEvents matches command events in order, with ignoreExtraEvents', () => {
  const entities = new EntityMap();
  const recorded = [
    { name: 'commandStartedEvent', type: 'command',
      event: { commandName: 'insert', databaseName: 'db', command: { insert: 'c', documents: [{ _id: 1 }], ordered: true, lsid: {} } } },
    { name: 'commandSucceededEvent', type: 'command', event: { commandName: 'insert', reply: { ok: 1, n: 1 } } },
    { name: 'connectionReadyEvent', type: 'cmap', event: {} },
  ];
  const client = fakeClient(recorded);
  checkExpectedEvents({ client: 'c0', events: [
    { commandStartedEvent: { command: { insert: 'c', documents: [{ _id: 1 }] }, commandName: 'insert', databaseName: 'db' } },
    { commandSucceededEvent: { reply: { n: 1 }, commandName: 'insert' } },
  ] }, client, { entities });
  assert.throws(() => checkExpectedEvents({ client: 'c0', events: [
    { commandStartedEvent: { commandName: 'insert' } }] }, client, { entities }), /expected 1 command events, got 2/);
  checkExpectedEvents({ client: 'c0', ignoreExtraEvents: true, events: [
    { commandStartedEvent: { commandName: 'insert' } }] }, client, { entities });
  assert.throws(() => checkExpectedEvents({ client: 'c0', events: [
    { commandStartedEvent: { command: { insert: 'c', documents: [{ _id: 2 }] } } },
    { commandSucceededEvent: {} }] }, client, { entities }), /documents\[0\]\._id/);
  checkExpectedEvents({ client: 'c0', eventType: 'cmap', events: [{ connectionReadyEvent: {} }] }, client, { entities });
});

// ------------------------------------------------------------------ reporting and baseline

test('failure causes group by kind, not by values', () => {
  const a = report.failureCause("operation 3 (find on collection0): unexpected error MongoServerError 59 CommandNotFound: no such command: 'find'");
  const b = report.failureCause("operation 0 (find on collection1): unexpected error MongoServerError 59 CommandNotFound: no such command: 'find'");
  assert.equal(a, b);
  assert.equal(a, "server error 59 CommandNotFound: no such command: 'find'");
  const m1 = report.failureCause('operation 1 (find on collection0): $[0].x: expectResult mismatch: expected 2, got 3');
  const m2 = report.failureCause('operation 4 (find on collection0): $[3].x: expectResult mismatch: expected 5, got 1');
  assert.equal(m1, m2);
  assert.equal(m1, 'find: result differs at [].x (different value)');
  assert.equal(report.failureCause('expectEvents[client0]: event 0.command.ordered: missing; expected true — actual insert: {}'),
    'expectEvents: command.ordered missing field');
});

test('baseline update keeps unrun entries; only baseline failures are regressions', () => {
  const results = [
    { id: 'a', status: 'passed' }, { id: 'b', status: 'failed' }, { id: 'c', status: 'skipped' },
  ];
  assert.deepEqual(report.updatedBaseline(['b', 'z'], results), ['a', 'z']);
  assert.deepEqual(report.regressions(['a', 'b', 'c', 'z'], results), ['b']);
  const s = report.summarize(results.map((r) => ({ ...r, folder: 'crud' })));
  assert.deepEqual(s.totals, { passed: 1, failed: 1, skipped: 1 });
  assert.match(report.table(s), /crud\s+1\s+1\s+1/);
});

// ------------------------------------------------------------------ server flags and files

test('quarryd flags follow what --help lists', () => {
  const help = 'Options:\n  --port INT\n  --dbpath TEXT\n  --enableTestCommands\n';
  assert.deepEqual(serverArguments(help, 5, '/d'), ['--port', '5', '--dbpath', '/d', '--enableTestCommands']);
  assert.deepEqual(serverArguments('  --port\n  --db-path\n', 5, '/d'), ['--port', '5', '--db-path', '/d']);
  assert.ok(!hasFlag('--enableTestCommandsX', '--enableTestCommands'));
});

test('test ids name the folder, the file and the test', () => {
  assert.equal(folderOf('crud/tests/unified/find.json'), 'crud');
  assert.equal(folderOf('unified-test-format/tests/valid-pass/poc-crud.json'), 'unified-test-format/valid-pass');
  assert.equal(fileKey('crud/tests/unified/find.json'), 'crud/find');
  assert.equal(testId('crud/tests/unified/find.json', 'x'), 'crud/find: x');
});

test('the runner skips a missing spec folder with one line and exit code 0', () => {
  const r = spawnSync(process.execPath, [path.join(here, 'run.js')], {
    env: { ...process.env, QUARRY_SPEC_TESTS: '/nonexistent/spec-tests' }, encoding: 'utf8',
  });
  assert.equal(r.status, 0);
  assert.equal(r.stdout.trim().split('\n').length, 1);
  assert.match(r.stdout, /spec tests skipped/);
});

// ------------------------------------------------------------------ the shared spec corpus

const specRoot = process.env.QUARRY_SPEC_TESTS || path.resolve(here, '..', '..', '..', 'shared', 'spec-tests');
const haveSpecs = fs.existsSync(specRoot);

test('every spec test is either runnable or skipped with a reason', { skip: !haveSpecs && 'no spec tests' }, async () => {
  const runner = new Runner({ facts: { ...quarry, uri: 'mongodb://127.0.0.1:1/', failPointsSupported: true, warnings: [] } });
  runner.serverParameter = quarry.parameter;
  const notImplemented = new Map();
  try {
    for (const f of findTestFiles(specRoot)) {
      const doc = parseTestFile(fs.readFileSync(f.file, 'utf8'));
      assert.ok(schemaVersionSupported(doc.schemaVersion), `${f.rel} schemaVersion ${doc.schemaVersion}`);
      for (const t of doc.tests) {
        const reason = await runner.skipReason(doc, t);
        assert.ok(reason === null || reason.length > 0);
        if (reason && reason.startsWith('runner:')) {
          notImplemented.set(reason, (notImplemented.get(reason) || 0) + 1);
        }
      }
    }
  } finally {
    await runner.close();
  }
  // The only operations the runner leaves out are mapReduce (gone from driver 7) and logging.
  for (const reason of notImplemented.keys()) {
    assert.match(reason, /mapReduce|expectLogMessages|observeLogMessages|Tracing/, reason);
  }
});

test('valid-pass files that Quarry can run use only implemented runner features', { skip: !haveSpecs && 'no spec tests' }, async () => {
  const dir = path.join(specRoot, 'unified-test-format', 'tests', 'valid-pass');
  const runner = new Runner({ facts: { ...quarry, uri: 'mongodb://127.0.0.1:1/', failPointsSupported: true, warnings: [] } });
  runner.serverParameter = quarry.parameter;
  const skipped = {};
  try {
    for (const name of fs.readdirSync(dir)) {
      const doc = parseTestFile(fs.readFileSync(path.join(dir, name), 'utf8'));
      for (const t of doc.tests) {
        const reason = await runner.skipReason(doc, t);
        if (reason) skipped[`${name}: ${t.description}`] = reason;
      }
    }
  } finally {
    await runner.close();
  }
  for (const [id, reason] of Object.entries(skipped)) {
    assert.match(reason, /^(runOnRequirements not met|CSFLE|skipReason)/, `${id}: ${reason}`);
  }
  assert.ok(isImplemented('collection', 'find'));
  assert.ok(!isImplemented('collection', 'mapReduce'));
  assert.equal(allOperations([{ name: 'withTransaction', arguments: { callback: [{ name: 'insertOne' }] } }]).length, 2);
});

test('EJSON output used in messages is relaxed', () => {
  assert.equal(EJSON.stringify({ a: new Int32(1) }, { relaxed: true }), '{"a":1}');
});

// ------------------------------------------------------------------ the real server, if built

const { findBinary, QuarryServer } = require('./lib/server.js');
const binary = findBinary(path.resolve(here, '..', '..'));

test('quarryd starts on a free port, restarts after being killed and stops by pid',
  { skip: !binary && 'no quarryd binary built', timeout: 60000 }, async () => {
    const server = new QuarryServer(binary);
    try {
      await server.start();
      assert.ok(server.alive);
      const port = server.port;
      const firstPid = server.child.pid;
      const exited = new Promise((resolve) => server.child.once('exit', resolve));
      process.kill(firstPid, 'SIGKILL');
      await exited;
      assert.ok(!server.alive);
      assert.equal(server.exitInfo.signal, 'SIGKILL');
      await server.start();
      assert.ok(server.alive);
      assert.equal(server.port, port);
      assert.notEqual(server.child.pid, firstPid);
    } finally {
      await server.stop();
      server.cleanup();
    }
    assert.ok(!server.alive);
    assert.ok(!fs.existsSync(server.dir));
  });
