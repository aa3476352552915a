'use strict';
// Entity operations and special test operations ("testRunner"), and the execution of one
// operation with its expectResult / expectError / saveResultAsEntity.

const { Readable } = require('stream');
const { MongoBulkWriteError } = require('mongodb');
const { nativeArguments, toNative } = require('./args');
const { match, MatchError, exactEqual, describe } = require('./match');
const { checkExpectedError, describeError, AssertionFailure } = require('./errors');
const { eventMatches } = require('./events');
const {
  createEntities, readPreferenceFrom, NotImplementedError, collectionOrDatabaseOptions,
} = require('./entities');

// ---------------------------------------------------------------- result conversions

function updateResult(r) {
  const out = {
    matchedCount: r.matchedCount,
    modifiedCount: r.modifiedCount,
    upsertedCount: r.upsertedCount,
  };
  if (r.upsertedId != null) out.upsertedId = r.upsertedId;
  return out;
}

function bulkWriteResult(r) {
  if (r == null) return undefined;
  return {
    insertedCount: r.insertedCount,
    matchedCount: r.matchedCount,
    modifiedCount: r.modifiedCount,
    deletedCount: r.deletedCount,
    upsertedCount: r.upsertedCount,
    upsertedIds: r.upsertedIds,
    insertedIds: r.insertedIds,
  };
}

function mapToDocument(m) {
  if (!(m instanceof Map)) return m;
  const out = {};
  for (const [k, v] of m.entries()) out[String(k)] = v;
  return out;
}

function clientBulkWriteResult(r) {
  if (r == null) return undefined;
  const out = {
    insertedCount: r.insertedCount,
    upsertedCount: r.upsertedCount,
    matchedCount: r.matchedCount,
    modifiedCount: r.modifiedCount,
    deletedCount: r.deletedCount,
  };
  if (r.insertResults) out.insertResults = mapToDocument(r.insertResults);
  if (r.updateResults) {
    out.updateResults = mapToDocument(r.updateResults);
    for (const v of Object.values(out.updateResults)) {
      if (v && v.upsertedId == null) delete v.upsertedId;
    }
  }
  if (r.deleteResults) out.deleteResults = mapToDocument(r.deleteResults);
  return out;
}

// The result carried by an error, for expectError.expectResult.
function errorResult(error) {
  if (error instanceof MongoBulkWriteError) return bulkWriteResult(error.result);
  if (error && error.partialResult) return clientBulkWriteResult(error.partialResult);
  return undefined;
}

// ---------------------------------------------------------------- helpers

function prepare(args, ctx) {
  const out = nativeArguments(args || {});
  if (out.session !== undefined) out.session = ctx.entities.get(args.session, 'session');
  if (out.readPreference !== undefined) out.readPreference = readPreferenceFrom(args.readPreference);
  if (out.returnDocument !== undefined) {
    const v = String(out.returnDocument).toLowerCase();
    if (v !== 'before' && v !== 'after') {
      throw new AssertionFailure(`returnDocument must be Before or After, got ${out.returnDocument}`);
    }
    out.returnDocument = v;
  }
  for (const key of ['writeConcern', 'readConcern']) {
    if (out[key] !== undefined) out[key] = toNative(out[key]);
  }
  return out;
}

function pick(args, ...keys) {
  const rest = { ...args };
  const picked = keys.map((k) => {
    const v = rest[k];
    delete rest[k];
    return v;
  });
  return [...picked, rest];
}

function hexBytes(source) {
  const hex = source && source.$$hexBytes;
  if (typeof hex !== 'string' || hex.length % 2 !== 0 || /[^0-9a-fA-F]/.test(hex)) {
    throw new AssertionFailure(`malformed $$hexBytes source ${describe(source)}`);
  }
  return Buffer.from(hex, 'hex');
}

async function readAll(stream) {
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function initCursor(cursor) {
  await cursor.cursorInit();
  return cursor;
}

function cursorOptionsFromType(cursorType) {
  if (cursorType === 'tailable') return { tailable: true };
  if (cursorType === 'tailableAwait') return { tailable: true, awaitData: true };
  return {};
}

function runCursorCommand(db, a) {
  const [command, batchSize, maxTimeMS, comment, cursorType, , rest] =
    pick(a, 'command', 'batchSize', 'maxTimeMS', 'comment', 'cursorType', 'commandName');
  const cursor = db.runCursorCommand(command, { ...rest, ...cursorOptionsFromType(cursorType) });
  if (batchSize !== undefined) cursor.setBatchSize(batchSize);
  if (maxTimeMS !== undefined) cursor.setMaxTimeMS(maxTimeMS);
  if (comment !== undefined) cursor.setComment(comment);
  return cursor;
}

function clientBulkWriteModels(models) {
  return models.map((m) => {
    const [name] = Object.keys(m);
    return { name, ...m[name] };
  });
}

const kTxnStates = {
  NO_TRANSACTION: 'none',
  STARTING_TRANSACTION: 'starting',
  TRANSACTION_IN_PROGRESS: 'in_progress',
  TRANSACTION_COMMITTED: 'committed',
  TRANSACTION_COMMITTED_EMPTY: 'committed',
  TRANSACTION_ABORTED: 'aborted',
};

async function listNames(coll) {
  return (await coll.listIndexes().toArray()).map((i) => i.name);
}

async function collectionExists(ctx, dbName, collName) {
  const names = await ctx.runner.internalClient.db(dbName)
    .listCollections({ name: collName }, { nameOnly: true }).toArray();
  return names.some((c) => c.name === collName);
}

// ---------------------------------------------------------------- entity operations

const collectionOps = {
  aggregate: (c, a) => { const [p, r] = pick(a, 'pipeline'); return c.aggregate(p, r).toArray(); },
  bulkWrite: async (c, a) => {
    const [requests, r] = pick(a, 'requests');
    return bulkWriteResult(await c.bulkWrite(requests, r));
  },
  count: (c, a) => { const [f, r] = pick(a, 'filter'); return c.count(f, r); },
  countDocuments: (c, a) => { const [f, r] = pick(a, 'filter'); return c.countDocuments(f, r); },
  createChangeStream: async (c, a) => {
    const [p, r] = pick(a, 'pipeline');
    const cs = c.watch(p || [], r);
    await cs.cursor.cursorInit();
    return cs;
  },
  createFindCursor: (c, a) => { const [f, r] = pick(a, 'filter'); return initCursor(c.find(f, r)); },
  createIndex: (c, a) => { const [k, r] = pick(a, 'keys'); return c.createIndex(k, r); },
  createSearchIndex: (c, a) => c.createSearchIndex(a.model),
  createSearchIndexes: (c, a) => c.createSearchIndexes(a.models),
  deleteMany: async (c, a) => {
    const [f, r] = pick(a, 'filter');
    return { deletedCount: (await c.deleteMany(f, r)).deletedCount };
  },
  deleteOne: async (c, a) => {
    const [f, r] = pick(a, 'filter');
    return { deletedCount: (await c.deleteOne(f, r)).deletedCount };
  },
  distinct: (c, a) => {
    const [k, f, r] = pick(a, 'fieldName', 'filter');
    return c.distinct(k, f ?? {}, r);
  },
  drop: (c, a) => c.drop(a),
  dropIndex: async (c, a) => { const [n, r] = pick(a, 'name'); await c.dropIndex(n, r); },
  dropIndexes: async (c, a) => { await c.dropIndexes(a); },
  dropSearchIndex: (c, a) => c.dropSearchIndex(a.name),
  estimatedDocumentCount: (c, a) => c.estimatedDocumentCount(a),
  find: (c, a) => { const [f, r] = pick(a, 'filter'); return c.find(f, r).toArray(); },
  findOne: (c, a) => { const [f, r] = pick(a, 'filter'); return c.findOne(f, r); },
  findOneAndDelete: (c, a) => { const [f, r] = pick(a, 'filter'); return c.findOneAndDelete(f, r); },
  findOneAndReplace: (c, a) => {
    const [f, d, r] = pick(a, 'filter', 'replacement');
    return c.findOneAndReplace(f, d, r);
  },
  findOneAndUpdate: (c, a) => {
    const [f, u, r] = pick(a, 'filter', 'update');
    return c.findOneAndUpdate(f, u, r);
  },
  insertMany: async (c, a) => {
    const [docs, r] = pick(a, 'documents');
    const res = await c.insertMany(docs, r);
    return { insertedIds: res.insertedIds, insertedCount: res.insertedCount };
  },
  insertOne: async (c, a) => {
    const [doc, r] = pick(a, 'document');
    return { insertedId: (await c.insertOne(doc, r)).insertedId };
  },
  listIndexes: (c, a) => c.listIndexes(a).toArray(),
  listIndexNames: (c) => listNames(c),
  listSearchIndexes: (c, a) => {
    const [name, aggregationOptions] = pick(a, 'name', 'aggregationOptions');
    const opts = toNative(aggregationOptions) || {};
    return (name !== undefined ? c.listSearchIndexes(name, opts) : c.listSearchIndexes(opts))
      .toArray();
  },
  rename: async (c, a) => { const [to, r] = pick(a, 'to'); await c.rename(to, r); },
  replaceOne: async (c, a) => {
    const [f, d, r] = pick(a, 'filter', 'replacement');
    return updateResult(await c.replaceOne(f, d, r));
  },
  updateMany: async (c, a) => {
    const [f, u, r] = pick(a, 'filter', 'update');
    return updateResult(await c.updateMany(f, u, r));
  },
  updateOne: async (c, a) => {
    const [f, u, r] = pick(a, 'filter', 'update');
    return updateResult(await c.updateOne(f, u, r));
  },
  updateSearchIndex: (c, a) => c.updateSearchIndex(a.name, a.definition),
};

const databaseOps = {
  aggregate: (d, a) => { const [p, r] = pick(a, 'pipeline'); return d.aggregate(p, r).toArray(); },
  createChangeStream: async (d, a) => {
    const [p, r] = pick(a, 'pipeline');
    const cs = d.watch(p || [], r);
    await cs.cursor.cursorInit();
    return cs;
  },
  createCollection: (d, a) => { const [n, r] = pick(a, 'collection'); return d.createCollection(n, r); },
  createCommandCursor: (d, a) => initCursor(runCursorCommand(d, a)),
  dropCollection: (d, a) => { const [n, r] = pick(a, 'collection'); return d.dropCollection(n, r); },
  listCollectionNames: async (d, a) => {
    const [f, r] = pick(a, 'filter');
    return (await d.listCollections(f ?? {}, { ...r, nameOnly: true }).toArray()).map((c) => c.name);
  },
  listCollections: (d, a) => {
    const [f, r] = pick(a, 'filter');
    return d.listCollections(f ?? {}, r).toArray();
  },
  modifyCollection: (d, a) => {
    const [collection, session, r] = pick(a, 'collection', 'session');
    return d.command({ collMod: collection, ...r }, { session });
  },
  runCommand: (d, a) => {
    const [command, , r] = pick(a, 'command', 'commandName');
    return d.command(command, r);
  },
  runCursorCommand: (d, a) => runCursorCommand(d, a).toArray(),
};

const clientOps = {
  clientBulkWrite: async (c, a) => {
    const [models, r] = pick(a, 'models');
    return clientBulkWriteResult(await c.client.bulkWrite(clientBulkWriteModels(models), r));
  },
  close: (c) => c.close(),
  createChangeStream: async (c, a) => {
    const [p, r] = pick(a, 'pipeline');
    const cs = c.client.watch(p || [], r);
    await cs.cursor.cursorInit();
    return cs;
  },
  listDatabaseNames: async (c, a) =>
    (await c.client.db('admin').admin().listDatabases({ ...a, nameOnly: true })).databases
      .map((d) => d.name),
  listDatabases: async (c, a) => (await c.client.db('admin').admin().listDatabases(a)).databases,
};

const sessionOps = {
  abortTransaction: (s) => s.abortTransaction(),
  commitTransaction: (s) => s.commitTransaction(),
  endSession: async (s, a, ctx, op) => {
    ctx.entities.sessionLsid(op.object);
    await s.endSession();
  },
  getSnapshotTime: (s) => s.snapshotTime,
  startTransaction: (s, a, ctx) => {
    ctx.usedTransactions = true;
    s.startTransaction(collectionOrDatabaseOptions(a));
  },
  withTransaction: async (s, a, ctx) => {
    ctx.usedTransactions = true;
    const [callback, r] = pick(a, 'callback');
    await s.withTransaction(async () => {
      for (const op of callback) await runOperation(op, ctx, { inCallback: true });
    }, collectionOrDatabaseOptions(r));
  },
};

const cursorOps = {
  close: async (c) => { try { await c.close(); } catch (_) { /* suppressed by the spec */ } },
  iterateOnce: (c) => c.tryNext(),
  iterateUntilDocumentOrError: (c) => c.next(),
};

const bucketOps = {
  delete: (b, a) => b.delete(a.id),
  download: async (b, a) => readAll(b.openDownloadStream(a.id)),
  downloadByName: async (b, a) => {
    const [filename, r] = pick(a, 'filename');
    return readAll(b.openDownloadStreamByName(filename, r));
  },
  drop: (b) => b.drop(),
  find: (b, a) => { const [f, r] = pick(a, 'filter'); return b.find(f, r).toArray(); },
  rename: (b, a) => b.rename(a.id, a.newFilename),
  upload: async (b, a) => {
    const [filename, source, r] = pick(a, 'filename', 'source');
    const stream = b.openUploadStream(filename, r);
    await new Promise((resolve, reject) => {
      Readable.from([hexBytes(source)]).pipe(stream).on('error', reject).on('finish', resolve);
    });
    return stream.id;
  },
  uploadWithId: async (b, a) => {
    const [id, filename, source, r] = pick(a, 'id', 'filename', 'source');
    const stream = b.openUploadStreamWithId(id, filename, r);
    await new Promise((resolve, reject) => {
      Readable.from([hexBytes(source)]).pipe(stream).on('error', reject).on('finish', resolve);
    });
    return id;
  },
};

const kEntityOps = {
  collection: collectionOps,
  database: databaseOps,
  client: clientOps,
  session: sessionOps,
  cursor: cursorOps,
  changeStream: cursorOps,
  bucket: bucketOps,
};

// Operations whose result is an iterable of root-level documents.
const kCursorResultOps = new Set([
  'aggregate', 'find', 'listCollections', 'listDatabases', 'listIndexes', 'listSearchIndexes',
  'runCursorCommand',
]);

// The entity type a saved result gets.
function savedEntityType(opName) {
  if (opName === 'createChangeStream') return 'changeStream';
  if (opName === 'createFindCursor' || opName === 'createCommandCursor') return 'cursor';
  if (opName === 'createCollection') return 'collection';
  return 'bson';
}

// ---------------------------------------------------------------- special test operations

function fail(message) {
  throw new AssertionFailure(message);
}

async function configureFailPoint(client, failPoint, ctx) {
  if (!ctx.runner.failPointsSupported) {
    throw new NotImplementedError('server: configureFailPoint not supported');
  }
  await client.client.db('admin').command(failPoint);
  ctx.failPoints.push(failPoint.configureFailPoint);
}

function lastTwoLsids(client) {
  const events = client.commandStartedEvents();
  if (events.length < 2) fail(`fewer than two commandStartedEvents recorded (${events.length})`);
  const [a, b] = events.slice(-2);
  if (!a.command.lsid || !b.command.lsid) fail('one of the last two commands has no lsid');
  return [a.command.lsid, b.command.lsid];
}

function countMatching(client, event, ctx) {
  return client.events.filter((e) => eventMatches(event, e, { entities: ctx.entities })).length;
}

function primaryOf(description) {
  for (const server of description.servers.values()) {
    if (server.type === 'RSPrimary') return server.address;
  }
  return null;
}

const testRunnerOps = {
  failPoint: (a, ctx) => configureFailPoint(ctx.entities.get(a.client, 'client'), a.failPoint, ctx),
  targetedFailPoint: (a, ctx) => {
    const session = ctx.entities.get(a.session, 'session');
    return configureFailPoint(session.unifiedClient, a.failPoint, ctx);
  },
  assertSessionTransactionState: (a, ctx) => {
    const session = ctx.entities.get(a.session, 'session');
    const state = kTxnStates[session.transaction.state];
    if (state !== a.state) fail(`session ${a.session} transaction state is ${state}, expected ${a.state}`);
  },
  assertSessionPinned: (a, ctx) => {
    if (!ctx.entities.get(a.session, 'session').isPinned) fail(`session ${a.session} is not pinned`);
  },
  assertSessionUnpinned: (a, ctx) => {
    if (ctx.entities.get(a.session, 'session').isPinned) fail(`session ${a.session} is pinned`);
  },
  assertDifferentLsidOnLastTwoCommands: (a, ctx) => {
    const [x, y] = lastTwoLsids(ctx.entities.get(a.client, 'client'));
    if (exactEqual(x, y)) fail('the last two commands used the same lsid');
  },
  assertSameLsidOnLastTwoCommands: (a, ctx) => {
    const [x, y] = lastTwoLsids(ctx.entities.get(a.client, 'client'));
    if (!exactEqual(x, y)) fail('the last two commands used different lsids');
  },
  assertSessionDirty: (a, ctx) => {
    const s = ctx.entities.get(a.session, 'session');
    if (!(s.serverSession && s.serverSession.isDirty)) fail(`session ${a.session} is not dirty`);
  },
  assertSessionNotDirty: (a, ctx) => {
    const s = ctx.entities.get(a.session, 'session');
    if (s.serverSession && s.serverSession.isDirty) fail(`session ${a.session} is dirty`);
  },
  assertCollectionExists: async (a, ctx) => {
    if (!(await collectionExists(ctx, a.databaseName, a.collectionName))) {
      fail(`collection ${a.databaseName}.${a.collectionName} does not exist`);
    }
  },
  assertCollectionNotExists: async (a, ctx) => {
    if (await collectionExists(ctx, a.databaseName, a.collectionName)) {
      fail(`collection ${a.databaseName}.${a.collectionName} exists`);
    }
  },
  assertIndexExists: async (a, ctx) => {
    const coll = ctx.runner.internalClient.db(a.databaseName).collection(a.collectionName);
    if (!(await listNames(coll)).includes(a.indexName)) fail(`index ${a.indexName} does not exist`);
  },
  assertIndexNotExists: async (a, ctx) => {
    const coll = ctx.runner.internalClient.db(a.databaseName).collection(a.collectionName);
    let names = [];
    try {
      names = await listNames(coll);
    } catch (e) {
      if (e.code !== 26) throw e; // NamespaceNotFound: no collection, so no index
    }
    if (names.includes(a.indexName)) fail(`index ${a.indexName} exists`);
  },
  createEntities: (a, ctx) => createEntities(a.entities, ctx.entities, ctx.runner),
  assertNumberConnectionsCheckedOut: (a, ctx) => {
    const client = ctx.entities.get(a.client, 'client');
    if (client.checkedOut !== Number(a.connections)) {
      fail(`${client.checkedOut} connections checked out, expected ${a.connections}`);
    }
  },
  runOnThread: (a, ctx) => {
    const thread = ctx.entities.get(a.thread, 'thread');
    thread.chain = thread.chain
      .then(() => runOperation(a.operation, ctx))
      .catch((e) => { thread.error = thread.error ?? e; });
  },
  waitForThread: async (a, ctx) => {
    const thread = ctx.entities.get(a.thread, 'thread');
    let timer;
    await Promise.race([
      thread.chain,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new AssertionFailure(`thread ${a.thread} did not finish in 10 s`)), 10000);
      }),
    ]).finally(() => clearTimeout(timer));
    if (thread.error) throw thread.error;
  },
  waitForEvent: (a, ctx) => {
    const client = ctx.entities.get(a.client, 'client');
    const count = Number(a.count);
    return client.waitUntil(() => countMatching(client, a.event, ctx) >= count, 10000,
      `${count} x ${Object.keys(a.event)[0]}`);
  },
  assertEventCount: (a, ctx) => {
    const client = ctx.entities.get(a.client, 'client');
    const n = countMatching(client, a.event, ctx);
    if (n !== Number(a.count)) fail(`${n} matching ${Object.keys(a.event)[0]} events, expected ${a.count}`);
  },
  recordTopologyDescription: (a, ctx) => {
    const client = ctx.entities.get(a.client, 'client');
    ctx.entities.set(a.id, 'topologyDescription', client.client.topology.description);
  },
  assertTopologyType: (a, ctx) => {
    const d = ctx.entities.get(a.topologyDescription, 'topologyDescription');
    if (d.type !== a.topologyType) fail(`topology type is ${d.type}, expected ${a.topologyType}`);
  },
  waitForPrimaryChange: async (a, ctx) => {
    const client = ctx.entities.get(a.client, 'client');
    const prior = primaryOf(ctx.entities.get(a.priorTopologyDescription, 'topologyDescription'));
    const deadline = Date.now() + Number(a.timeoutMS ?? 10000);
    for (;;) {
      const now = primaryOf(client.client.topology.description);
      if (now !== null && now !== prior) return;
      if (Date.now() > deadline) fail('the primary did not change in time');
      await new Promise((r) => setTimeout(r, 50));
    }
  },
  wait: (a) => new Promise((r) => setTimeout(r, Number(a.ms))),
};

// Every implemented operation name, by entity type (for skipping tests before they run).
function isImplemented(entityType, name) {
  if (entityType === 'testRunner') return name in testRunnerOps;
  if (entityType === undefined) {
    return Object.values(kEntityOps).some((ops) => name in ops);
  }
  const ops = kEntityOps[entityType];
  return ops !== undefined && name in ops;
}

// ---------------------------------------------------------------- executing one operation

class OperationError extends Error {
  constructor(op, index, cause) {
    const where = `operation ${index ?? ''}${index !== undefined ? ' ' : ''}(${op.name} on ${op.object})`;
    super(`${where}: ${cause instanceof AssertionFailure || cause instanceof MatchError
      ? cause.message : `unexpected error ${describeError(cause)}`}`);
    this.name = 'OperationError';
    this.cause = cause;
    this.op = op;
  }
}

async function runOperation(op, ctx, { inCallback = false, index } = {}) {
  const wrap = (e) => (e instanceof OperationError || e instanceof NotImplementedError
    ? e : new OperationError(op, index, e));
  if (op.object === 'testRunner') {
    const impl = testRunnerOps[op.name];
    if (!impl) throw new NotImplementedError(`runner: operation testRunner.${op.name} not implemented`);
    try {
      await impl(op.arguments || {}, ctx);
    } catch (e) {
      throw wrap(e);
    }
    return;
  }
  const { type, value } = ctx.entities.entry(op.object);
  const ops = kEntityOps[type];
  const impl = ops && ops[op.name];
  if (!impl) throw new NotImplementedError(`runner: operation ${op.name} not implemented`);
  let result;
  let error = null;
  try {
    const args = prepare(op.arguments, ctx);
    result = await impl(value, args, ctx, op);
  } catch (e) {
    if (e instanceof NotImplementedError || e instanceof OperationError) throw e;
    error = e;
  }
  if (op.ignoreResultAndError) {
    if (error && inCallback) throw error;
    return;
  }
  try {
    if (op.expectError) {
      if (!error) {
        throw new AssertionFailure(`expected an error (${JSON.stringify(toNative(op.expectError))}), ` +
          `got result ${describe(result)}`);
      }
      checkExpectedError(op.expectError, error, { entities: ctx.entities, errorResult });
    } else if (error) {
      throw new OperationError(op, index, error);
    }
    if (op.expectResult !== undefined && !op.expectError) {
      match(op.expectResult, result,
        { entities: ctx.entities, rootArrayElements: kCursorResultOps.has(op.name) }, true);
    }
  } catch (e) {
    throw wrap(e instanceof MatchError ? new MatchError(e.path,
      `expectResult mismatch: ${e.message.slice(e.path.length + 2)}`) : e);
  }
  if (error && inCallback) throw error;
  if (op.saveResultAsEntity) {
    ctx.entities.set(op.saveResultAsEntity, savedEntityType(op.name), result);
  }
}

// Operations (including nested ones) of a test, for the pre-run checks.
function allOperations(operations) {
  const out = [];
  for (const op of operations || []) {
    out.push(op);
    if (op.arguments && Array.isArray(op.arguments.callback)) {
      out.push(...allOperations(op.arguments.callback));
    }
    if (op.arguments && op.arguments.operation) out.push(...allOperations([op.arguments.operation]));
  }
  return out;
}

module.exports = {
  runOperation,
  allOperations,
  isImplemented,
  savedEntityType,
  errorResult,
  bulkWriteResult,
  updateResult,
  kCursorResultOps,
  OperationError,
};
