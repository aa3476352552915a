// Node.js `mongodb` 7.x: cursors over many documents, each wire compressor, and the replica-set
// view of the server (replicaSet=rs0).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { serveThisFile } from './quarry_server.mjs';

const fixture = serveThisFile('cursors', {
  setUp: async ({ connect }) => {
    const c = await connect();
    const docs = Array.from({ length: 10_000 }, (_, i) => ({ _id: i, text: `document number ${i} `.repeat(8) }));
    await c.db('node_many').collection('docs').insertMany(docs);
  },
});
const connect = (uriOptions = '') => fixture.connect(uriOptions);

async function serverNetwork(client) {
  return (await client.db('admin').command({ serverStatus: 1 })).network;
}

describe('cursors', () => {
  test('for await over 10,000 documents returns each once, in _id order', async () => {
    const c = await connect();
    let expected = 0;
    for await (const doc of c.db('node_many').collection('docs').find({}, { projection: { text: 0 } })) {
      assert.equal(doc._id, expected++);
    }
    assert.equal(expected, 10_000);
  });

  test('small batchSize goes through many getMores', async () => {
    const c = await connect();
    const ids = await c.db('node_many').collection('docs')
      .find({ _id: { $gte: 9000 } }, { batchSize: 7, projection: { _id: 1 } }).toArray();
    assert.deepEqual(ids.map((d) => d._id), Array.from({ length: 1000 }, (_, i) => 9000 + i));
  });

  test('sorted descending with limit', async () => {
    const c = await connect();
    const ids = await c.db('node_many').collection('docs')
      .find({}, { sort: { _id: -1 }, limit: 300, batchSize: 100, projection: { _id: 1 } }).toArray();
    assert.equal(ids.length, 300);
    assert.equal(ids[0]._id, 9999);
    assert.equal(ids[299]._id, 9700);
  });

  test('closing a cursor early kills it on the server', async () => {
    const c = await connect();
    const cursor = c.db('node_many').collection('docs').find({}, { batchSize: 10 });
    await cursor.next();
    const id = cursor.id;
    await cursor.close();
    await assert.rejects(
      c.db('node_many').command({ getMore: id, collection: 'docs' }),
      (err) => err.code === 43,
    );
  });
});

describe('tailable cursors', () => {
  test('a tailable awaitData cursor on a capped collection hands over documents as they are inserted', async () => {
    const c = await connect();
    const db = c.db('node_tail');
    const log = await db.createCollection('log', { capped: true, size: 65536, max: 100 });
    await log.insertOne({ _id: 0, msg: 'first' });
    const cursor = log.find({}, { tailable: true, awaitData: true, maxAwaitTimeMS: 5000 });
    assert.deepEqual(await cursor.next(), { _id: 0, msg: 'first' });
    const writer = (async () => {
      for (let i = 1; i <= 3; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        await c.db('node_tail').collection('log').insertOne({ _id: i, msg: `m${i}` });
      }
    })();
    const received = [];
    for (let i = 1; i <= 3; i++) received.push((await cursor.next())._id);
    await writer;
    assert.deepEqual(received, [1, 2, 3]);
    await cursor.close();
    await db.dropDatabase();
  });
});

describe('compression', () => {
  for (const compressor of ['zstd', 'snappy', 'zlib']) {
    test(`compressors=${compressor}: CRUD works and the server decompressed the requests`, async () => {
      const c = await connect(`compressors=${compressor}`);
      const before = (await serverNetwork(c)).compression[compressor];
      const coll = c.db('node_compression').collection(compressor);
      await coll.insertMany(Array.from({ length: 200 }, (_, i) => ({ _id: i, pad: 'x'.repeat(500) })));
      const all = await coll.find({}).toArray();
      assert.equal(all.length, 200);
      assert.equal(all[199].pad, 'x'.repeat(500));
      const afterStats = (await serverNetwork(c)).compression[compressor];
      assert.ok(afterStats.decompressor.bytesIn > before.decompressor.bytesIn,
        `decompressor.bytesIn ${before.decompressor.bytesIn} -> ${afterStats.decompressor.bytesIn}`);
      assert.ok(afterStats.compressor.bytesIn > before.compressor.bytesIn,
        `compressor.bytesIn ${before.compressor.bytesIn} -> ${afterStats.compressor.bytesIn}`);
    });
  }

  test('without compressors the driver still works', async () => {
    const c = await connect();
    const coll = c.db('node_compression').collection('none');
    await coll.insertOne({ _id: 1 });
    assert.equal(await coll.countDocuments(), 1);
  });

  for (const compressor of ['zstd', 'snappy', '']) {
    test(`a 4 MB document comes back whole${compressor ? ` with ${compressor}` : ''}`, async () => {
      const c = await connect(compressor ? `compressors=${compressor}` : '');
      const coll = c.db('node_large').collection(compressor || 'none');
      const records = Array.from({ length: 40_000 }, (_, i) => ({
        n: i, name: `item ${i % 97} of ${i % 13}`, price: (i * 7919) % 1000 / 10, tags: ['a', `t${i % 7}`],
      }));
      await coll.insertOne({ _id: 1, records });
      const before = await serverNetwork(c);
      const found = await coll.findOne({ _id: 1 });
      const afterNet = await serverNetwork(c);
      assert.deepEqual(found, { _id: 1, records });
      if (compressor === 'zstd') {
        // The server sends the stored frame: a small fraction of the document's bytes.
        const physical = Number(afterNet.physicalBytesOut) - Number(before.physicalBytesOut);
        const logical = Number(afterNet.bytesOut) - Number(before.bytesOut);
        assert.ok(logical > 3_000_000 && physical < logical / 4, `${physical} physical, ${logical} logical`);
      }
    });
  }

  test('zstd reads of the 10,000 documents move far fewer physical bytes', async () => {
    const c = await connect('compressors=zstd');
    const before = await serverNetwork(c);
    assert.equal((await c.db('node_many').collection('docs').find({}).toArray()).length, 10_000);
    const afterNet = await serverNetwork(c);
    const logical = Number(afterNet.bytesOut) - Number(before.bytesOut);
    const physical = Number(afterNet.physicalBytesOut) - Number(before.physicalBytesOut);
    assert.ok(physical < logical / 3, `${physical} physical for ${logical} logical bytes out`);
  });
});

describe('topology', () => {
  test('replicaSet=rs0 sees a primary and writes', async () => {
    const c = await connect('replicaSet=rs0');
    const coll = c.db('node_topology').collection('rs');
    await coll.insertOne({ _id: 'rs' });
    assert.deepEqual(await coll.findOne({ _id: 'rs' }), { _id: 'rs' });
    const hello = await c.db('admin').command({ hello: 1 });
    assert.equal(hello.isWritablePrimary, true);
    assert.equal(hello.setName, 'rs0');
    assert.deepEqual(hello.hosts, [`127.0.0.1:${fixture.server.port}`]);
    assert.equal(hello.maxWireVersion, 21);
  });

  test('replicaSet=rs0 with retryable writes inside a session', async () => {
    const c = await connect('replicaSet=rs0&retryWrites=true');
    const session = c.startSession();
    try {
      const coll = c.db('node_topology').collection('session');
      await coll.insertOne({ _id: 1 }, { session });
      await coll.updateOne({ _id: 1 }, { $set: { x: 1 } }, { session });
      assert.deepEqual(await coll.findOne({ _id: 1 }, { session }), { _id: 1, x: 1 });
    } finally {
      await session.endSession();
    }
  });

  test('directConnection=true works too', async () => {
    const c = await connect('directConnection=true');
    assert.equal((await c.db('admin').command({ ping: 1 })).ok, 1);
  });
});
