'use strict';
// Entity operations: what each operation name does on a collection, database, client,
// session, cursor / change stream or GridFS bucket, with results converted to documents.

const { Readable } = require('stream');
const { MongoBulkWriteError } = require('mongodb');
const { nativeArguments, toNative } = require('./args');
const { describe } = require('./match');
const { AssertionFailure } = require('./errors');
const { readPreferenceFrom, collectionOrDatabaseOptions } = require('./entities');

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

async function listNames(coll) {
  return (await coll.listIndexes().toArray()).map((i) => i.name);
}

// ---------------------------------------------------------------- operations by entity type

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
      for (const op of callback) await ctx.runOperation(op, ctx, { inCallback: true });
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

module.exports = {
  kEntityOps,
  kCursorResultOps,
  savedEntityType,
  prepare,
  errorResult,
  bulkWriteResult,
  updateResult,
  listNames,
};
