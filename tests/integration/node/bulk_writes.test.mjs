// Bulk writes with the Node.js `mongodb` 7.x driver against a real quarryd (issue #4): 100,000
// operations per call with errors at known positions, upserts, every write concern, getLastError,
// and read-your-writes after w:0. The pytest twin is ../bulk/test_bulk_writes.py.
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';

import {
  MongoBulkWriteError, MongoServerError, MongoWriteConcernError, ObjectId,
} from 'mongodb';

import { serveThisFile } from './quarry_server.mjs';

const BATCH = 100_000;
const DUPLICATE_POSITIONS = [10, 5_000, 77_777, 99_999];

const fixture = serveThisFile('bulk', { dbPrefix: 'node_bulk' });
let client;
let db;
beforeEach(() => {
  ({ client, db } = fixture);
});

// A client with one pooled connection, so every operation on it shares one socket (what
// read-your-writes after w:0 and getLastError are about).
function singleConnectionClient() {
  return fixture.connect('', { maxPoolSize: 1 });
}

// 100,000 documents whose _ids repeat the previous one exactly at DUPLICATE_POSITIONS.
function documentsWithDuplicates() {
  const docs = Array.from({ length: BATCH }, (_, i) => ({ _id: i, v: i }));
  for (const position of DUPLICATE_POSITIONS) docs[position] = { _id: position - 1, v: 'duplicate' };
  return docs;
}

// What the driver's bulk API exposes of each write error: index, code and errmsg. (It drops
// codeName/keyPattern/keyValue; the raw-command test below checks those.)
function assertDuplicateKeyError(writeError, position) {
  assert.equal(writeError.index, position);
  assert.equal(writeError.code, 11000);
  assert.match(writeError.errmsg, /duplicate key/);
  assert.match(writeError.errmsg, new RegExp(`_id: ${position - 1} `));
}

describe('insertMany of 100,000 documents with duplicate _ids', () => {
  test('unordered reports every duplicate by index and inserts all the others', async () => {
    const coll = db.collection('c');
    await assert.rejects(coll.insertMany(documentsWithDuplicates(), { ordered: false }), (err) => {
      assert.ok(err instanceof MongoBulkWriteError, String(err));
      assert.equal(err.code, 11000);
      assert.deepEqual(err.writeErrors.map((e) => e.index), DUPLICATE_POSITIONS);
      err.writeErrors.forEach((e, i) => assertDuplicateKeyError(e, DUPLICATE_POSITIONS[i]));
      assert.equal(err.insertedCount, BATCH - DUPLICATE_POSITIONS.length);
      return true;
    });
    assert.equal(await coll.countDocuments(), BATCH - DUPLICATE_POSITIONS.length);
    assert.equal(await coll.countDocuments({ v: 'duplicate' }), 0);
    // The first document with a repeated _id is the one kept.
    assert.deepEqual(await coll.findOne({ _id: 77_776 }), { _id: 77_776, v: 77_776 });
    assert.deepEqual(await coll.findOne({ _id: 99_998 }), { _id: 99_998, v: 99_998 });
  });

  test('ordered stops at the first duplicate: only the documents before it are inserted', async () => {
    const coll = db.collection('c');
    const first = DUPLICATE_POSITIONS[0];
    await assert.rejects(coll.insertMany(documentsWithDuplicates(), { ordered: true }), (err) => {
      assert.ok(err instanceof MongoBulkWriteError, String(err));
      assert.equal(err.writeErrors.length, 1);
      assertDuplicateKeyError(err.writeErrors[0], first);
      assert.equal(err.insertedCount, first);
      return true;
    });
    assert.equal(await coll.countDocuments(), first);
    assert.equal(await coll.countDocuments({ _id: { $gte: first } }), 0);
  });
  test('a raw unordered insert command of 100,000 documents carries full writeErrors', async () => {
    const reply = await db.command({ insert: 'c', documents: documentsWithDuplicates(), ordered: false });
    assert.equal(reply.ok, 1);
    assert.equal(reply.n, BATCH - DUPLICATE_POSITIONS.length);
    assert.deepEqual(reply.writeErrors.map((e) => e.index), DUPLICATE_POSITIONS);
    reply.writeErrors.forEach((e, i) => {
      const position = DUPLICATE_POSITIONS[i];
      assert.equal(e.code, 11000);
      assert.equal(e.codeName, 'DuplicateKey');
      assert.match(e.errmsg, /^E11000 duplicate key error collection: node_bulk_\d+\.c index: _id_ dup key/);
      assert.deepEqual(e.keyPattern, { _id: 1 });
      assert.deepEqual(e.keyValue, { _id: position - 1 });
    });
    assert.equal(await db.collection('c').countDocuments(), BATCH - DUPLICATE_POSITIONS.length);
  });
});

describe('bulkWrite of 100,000 operations', () => {
  const quarter = BATCH / 4;

  test('unordered interleaved updateOne/deleteOne/insertOne/upserts report every count', async () => {
    const coll = db.collection('c');
    await coll.insertMany(Array.from({ length: BATCH }, (_, i) => ({ _id: i, n: 0 })));
    const upsertPositions = [3, 50_003, 99_999];  // all ≡ 3 (mod 4): they replace no-op updates
    const ops = Array.from({ length: BATCH }, (_, i) => {
      if (upsertPositions.includes(i)) {
        return { updateOne: { filter: { _id: `up${i}` }, update: { $set: { n: i } }, upsert: true } };
      }
      switch (i % 4) {
        case 0: return { updateOne: { filter: { _id: i }, update: { $inc: { n: 1 } } } };
        case 1: return { deleteOne: { filter: { _id: i } } };
        case 2: return { insertOne: { document: { _id: BATCH + i, n: 2 } } };
        default: return { updateOne: { filter: { _id: i }, update: { $set: { n: 0 } } } };  // matches, changes nothing
      }
    });
    const result = await coll.bulkWrite(ops, { ordered: false });
    assert.equal(result.insertedCount, quarter);
    assert.equal(result.matchedCount, 2 * quarter - upsertPositions.length);
    assert.equal(result.modifiedCount, quarter);
    assert.equal(result.deletedCount, quarter);
    assert.equal(result.upsertedCount, upsertPositions.length);
    // The driver numbers an unordered bulk's upserts within its update sub-batch (bulk/common.js
    // adds only the sub-batch's first index), so only the _ids are compared here; the ordered
    // test below checks the exact operation indexes.
    assert.deepEqual(Object.values(result.upsertedIds).sort(), upsertPositions.map((i) => `up${i}`).sort());

    assert.equal(await coll.countDocuments(), BATCH - quarter + quarter + upsertPositions.length);
    assert.equal(await coll.countDocuments({ n: 1 }), quarter);
    assert.equal(await coll.countDocuments({ n: 2 }), quarter);
    assert.equal(await coll.countDocuments({ _id: { $mod: [4, 1] } }), 0);
    assert.deepEqual(await coll.findOne({ _id: 'up50003' }), { _id: 'up50003', n: 50_003 });
  });

  test('ordered blocks of updateOne, deleteOne, insertOne and upserts report exact upsertedIds', async () => {
    const coll = db.collection('c');
    await coll.insertMany(Array.from({ length: BATCH }, (_, i) => ({ _id: i, n: 0 })));
    const upsertPositions = [75_000, 87_654, 99_999];
    // [0, 25k): $inc existing; [25k, 50k): delete existing; [50k, 75k): insert new;
    // [75k, 100k): $set that changes nothing on existing documents, except the upserts.
    const ops = Array.from({ length: BATCH }, (_, i) => {
      if (upsertPositions.includes(i)) {
        return { updateOne: { filter: { _id: `up${i}` }, update: { $set: { n: i } }, upsert: true } };
      }
      if (i < quarter) return { updateOne: { filter: { _id: i }, update: { $inc: { n: 1 } } } };
      if (i < 2 * quarter) return { deleteOne: { filter: { _id: i } } };
      if (i < 3 * quarter) return { insertOne: { document: { _id: BATCH + i, n: 2 } } };
      return { updateOne: { filter: { _id: i }, update: { $set: { n: 0 } } } };
    });
    const result = await coll.bulkWrite(ops, { ordered: true });
    assert.equal(result.insertedCount, quarter);
    assert.equal(result.matchedCount, 2 * quarter - upsertPositions.length);
    assert.equal(result.modifiedCount, quarter);
    assert.equal(result.deletedCount, quarter);
    assert.equal(result.upsertedCount, upsertPositions.length);
    assert.deepEqual(result.upsertedIds, Object.fromEntries(upsertPositions.map((i) => [i, `up${i}`])));
    assert.equal(await coll.countDocuments(), BATCH + upsertPositions.length);
    assert.equal(await coll.countDocuments({ n: 1 }), quarter);
    assert.equal(await coll.countDocuments({ _id: { $gte: quarter, $lt: 2 * quarter } }), 0);
  });

  test('ordered updates stop at the first failing one; unordered apply all the others', async () => {
    const failing = 60_000;
    const docs = () => Array.from({ length: BATCH }, (_, i) => ({ _id: i, n: i === failing ? 'text' : 0 }));
    const incAll = Array.from({ length: BATCH }, (_, i) => ({
      updateOne: { filter: { _id: i }, update: { $inc: { n: 1 } } },
    }));
    for (const ordered of [true, false]) {
      const coll = db.collection(ordered ? 'ordered' : 'unordered');
      await coll.insertMany(docs());
      await assert.rejects(coll.bulkWrite(incAll, { ordered }), (err) => {
        assert.ok(err instanceof MongoBulkWriteError, String(err));
        assert.deepEqual(err.writeErrors.map((e) => e.index), [failing]);
        assert.equal(err.writeErrors[0].code, 14);  // TypeMismatch: $inc of a string
        const applied = ordered ? failing : BATCH - 1;
        assert.equal(err.matchedCount, applied);
        assert.equal(err.modifiedCount, applied);
        return true;
      });
      assert.equal(await coll.countDocuments({ n: 1 }), ordered ? failing : BATCH - 1, `ordered: ${ordered}`);
      assert.deepEqual(await coll.findOne({ _id: failing }), { _id: failing, n: 'text' });
    }
  });
});

describe('upserts', () => {
  test('upsertedIds maps each upserting operation index to its _id', async () => {
    const coll = db.collection('c');
    const result = await coll.bulkWrite([
      { updateOne: { filter: { _id: 'a' }, update: { $set: { x: 1 } }, upsert: true } },
      { insertOne: { document: { _id: 'b' } } },
      { updateOne: { filter: { _id: 'c' }, update: { $set: { x: 2 } }, upsert: true } },
      { updateOne: { filter: { _id: 'a' }, update: { $set: { x: 3 } }, upsert: true } },  // now matches
      { replaceOne: { filter: { k: 'generated' }, replacement: { k: 'generated', x: 4 }, upsert: true } },
    ]);
    assert.equal(result.insertedCount, 1);
    assert.equal(result.matchedCount, 1);
    assert.equal(result.modifiedCount, 1);
    assert.equal(result.upsertedCount, 3);
    assert.deepEqual(Object.keys(result.upsertedIds), ['0', '2', '4']);
    assert.equal(result.upsertedIds[0], 'a');
    assert.equal(result.upsertedIds[2], 'c');
    const generated = result.upsertedIds[4];
    assert.ok(generated instanceof ObjectId, `server-generated upsert _id: ${generated}`);
    assert.deepEqual(await coll.findOne({ k: 'generated' }), { _id: generated, k: 'generated', x: 4 });
    assert.deepEqual(await coll.findOne({ _id: 'a' }), { _id: 'a', x: 3 });
  });

  test('the raw update command replies n, nModified and upserted [{index, _id}]', async () => {
    await db.collection('c').insertOne({ _id: 1, x: 0 });
    const reply = await db.command({
      update: 'c',
      updates: [
        { q: { _id: 1 }, u: { $set: { x: 1 } } },
        { q: { _id: 2 }, u: { $set: { x: 2 } }, upsert: true },
        { q: { _id: 1 }, u: { $set: { x: 1 } } },
        { q: { _id: 3 }, u: { $set: { x: 3 } }, upsert: true },
      ],
    });
    assert.equal(reply.ok, 1);
    assert.equal(reply.n, 4);
    assert.equal(reply.nModified, 1);
    assert.deepEqual(reply.upserted, [{ index: 1, _id: 2 }, { index: 3, _id: 3 }]);
    assert.equal(reply.writeErrors, undefined);
  });
});

describe('write concerns', () => {
  test('w:0 inserts of 200,000 documents are all visible to the next count on the same connection', async () => {
    const single = await singleConnectionClient();
    const coll = single.db(db.databaseName).collection('c', { writeConcern: { w: 0 } });
    const total = 200_000;
    const chunk = 50_000;
    for (let start = 0; start < total; start += chunk) {
      const docs = Array.from({ length: chunk }, (_, i) => ({ _id: start + i, pad: 'x'.repeat(100) }));
      const result = await coll.insertMany(docs);
      assert.equal(result.acknowledged, false);
    }
    assert.equal(await single.db(db.databaseName).collection('c').countDocuments(), total);
  });

  test('getLastError after a w:0 duplicate reports code 11000; after a w:0 success, no error', async () => {
    const single = await singleConnectionClient();
    const database = single.db(db.databaseName);
    const unacknowledged = database.collection('c', { writeConcern: { w: 0 } });
    const metric = async () => (await single.db('admin').command({ serverStatus: 1 }))
      .metrics.quarry.unacknowledgedWriteErrors;
    const errorsBefore = await metric();

    await database.collection('c').insertOne({ _id: 1 });
    assert.equal((await unacknowledged.insertOne({ _id: 1 })).acknowledged, false);
    let last = await database.command({ getLastError: 1 });
    assert.equal(last.ok, 1);
    assert.equal(last.code, 11000);
    assert.match(last.err, /duplicate key/);

    assert.equal((await unacknowledged.insertOne({ _id: 2 })).acknowledged, false);
    last = await database.command({ getLastError: 1 });
    assert.equal(last.err, null);
    assert.equal(last.n, 1);
    assert.equal(last.code, undefined);

    assert.equal(Number(await metric()) - Number(errorsBefore), 1,
      'serverStatus metrics.quarry.unacknowledgedWriteErrors counts the one w:0 failure');
    assert.equal(await database.collection('c').countDocuments(), 2);
  });

  test('j:true, w:"majority" and w:1 with wtimeoutMS are acknowledged', async () => {
    const concerns = [{ j: true }, { w: 'majority' }, { w: 'majority', j: true }, { w: 1, wtimeoutMS: 100 }];
    for (const writeConcern of concerns) {
      const coll = db.collection('c', { writeConcern });
      const many = await coll.insertMany(Array.from({ length: 1000 }, () => ({ wc: JSON.stringify(writeConcern) })));
      assert.equal(many.acknowledged, true, JSON.stringify(writeConcern));
      assert.equal(many.insertedCount, 1000);
      const tag = `one ${JSON.stringify(writeConcern)}`;
      const one = await coll.insertOne({ wc: tag }, { writeConcern });
      assert.equal(one.acknowledged, true);
      const bulk = await coll.bulkWrite([{ updateMany: { filter: { wc: tag }, update: { $set: { seen: true } } } }],
        { writeConcern });
      assert.equal(bulk.matchedCount, 1);
      assert.equal(bulk.modifiedCount, 1);
    }
    assert.equal(await db.collection('c').countDocuments(), concerns.length * 1001);
  });

  test('w:3 on one server applies the write and raises UnsatisfiableWriteConcern (code 100)', async () => {
    const coll = db.collection('c');
    await assert.rejects(coll.insertOne({ _id: 1 }, { writeConcern: { w: 3 } }), (err) => {
      assert.ok(err instanceof MongoWriteConcernError, String(err));
      assert.equal(err.code, 100);
      assert.equal(err.codeName, 'UnsatisfiableWriteConcern');
      assert.equal(err.result.n, 1);
      return true;
    });
    await assert.rejects(coll.insertMany([{ _id: 2 }, { _id: 3 }], { writeConcern: { w: 3 } }), (err) => {
      assert.ok(err instanceof MongoBulkWriteError, String(err));
      assert.equal(err.code, 100);
      assert.equal(err.writeErrors.length, 0);
      assert.equal(err.insertedCount, 2);
      return true;
    });
    assert.deepEqual(await coll.find().sort({ _id: 1 }).toArray(), [{ _id: 1 }, { _id: 2 }, { _id: 3 }]);
  });
});

describe('batch size limit', () => {
  const ids = (n) => Array.from({ length: n }, (_, i) => ({ _id: i }));

  test('an insert command of exactly 100,000 documents in an embedded array is accepted', async () => {
    const reply = await db.command({ insert: 'c', documents: ids(BATCH) });
    assert.equal(reply.n, BATCH);
    assert.equal(await db.collection('c').countDocuments(), BATCH);
  });

  test('an insert command of 100,001 documents is refused with code 16 and inserts nothing', async () => {
    await assert.rejects(db.command({ insert: 'c', documents: ids(BATCH + 1) }), (err) => {
      assert.ok(err instanceof MongoServerError, String(err));
      assert.equal(err.code, 16);
      return true;
    });
    assert.equal(await db.collection('c').countDocuments(), 0);
  });

  test('update and delete commands of 100,001 statements are refused with code 16', async () => {
    await db.collection('c').insertOne({ _id: 0, n: 0 });
    const updates = Array.from({ length: BATCH + 1 }, () => ({ q: { _id: 0 }, u: { $inc: { n: 1 } } }));
    await assert.rejects(db.command({ update: 'c', updates }), (err) => err.code === 16);
    const deletes = Array.from({ length: BATCH + 1 }, () => ({ q: { _id: 0 }, limit: 1 }));
    await assert.rejects(db.command({ delete: 'c', deletes }), (err) => err.code === 16);
    assert.deepEqual(await db.collection('c').findOne(), { _id: 0, n: 0 });
  });
});
