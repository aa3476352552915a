// CRUD with the Node.js `mongodb` 7.x driver against a real quarryd (no compression).
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';

import { Long, MongoServerError, ObjectId } from 'mongodb';

import { serveThisFile } from './quarry_server.mjs';

const fixture = serveThisFile('crud', { dbPrefix: 'node_crud' });
let client;
let db;
beforeEach(() => {
  ({ client, db } = fixture);
});

describe('insert', () => {
  test('insertOne assigns an ObjectId and the document reads back', async () => {
    const result = await db.collection('c').insertOne({ name: 'ann', n: 1 });
    assert.ok(result.insertedId instanceof ObjectId);
    const doc = await db.collection('c').findOne({ _id: result.insertedId });
    assert.deepEqual(doc, { _id: result.insertedId, name: 'ann', n: 1 });
  });

  test('insertMany inserts every document', async () => {
    const docs = Array.from({ length: 500 }, (_, i) => ({ _id: i, sq: i * i }));
    const result = await db.collection('c').insertMany(docs);
    assert.equal(result.insertedCount, 500);
    assert.equal(await db.collection('c').countDocuments(), 500);
  });

  test('duplicate _id is a MongoServerError with code 11000 and keyValue', async () => {
    await db.collection('c').insertOne({ _id: 'dup' });
    await assert.rejects(db.collection('c').insertOne({ _id: 'dup' }), (err) => {
      assert.ok(err instanceof MongoServerError, String(err));
      assert.equal(err.code, 11000);
      assert.deepEqual(err.keyValue, { _id: 'dup' });
      return true;
    });
  });

  test('unordered insertMany reports each duplicate and inserts the rest', async () => {
    await db.collection('c').insertOne({ _id: 2 });
    await assert.rejects(
      db.collection('c').insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3 }, { _id: 3 }], { ordered: false }),
      (err) => {
        assert.equal(err.code, 11000);
        assert.deepEqual(err.writeErrors.map((e) => e.index), [1, 3]);
        return true;
      },
    );
    assert.equal(await db.collection('c').countDocuments(), 3);
  });

  test('Long, Double, Date, nested and array values round-trip', async () => {
    const doc = {
      _id: 'types', long: Long.fromString('9007199254740993'), d: 2.5, when: new Date(1589718645123),
      nested: { a: [1, { b: 'c' }] }, empty: [], nul: null,
    };
    await db.collection('c').insertOne(doc);
    const got = await db.collection('c').findOne({ _id: 'types' }, { promoteLongs: false });
    assert.equal(got.long.toString(), '9007199254740993');
    assert.equal(got.d, 2.5);
    assert.equal(got.when.getTime(), 1589718645123);
    assert.deepEqual(got.nested, { a: [1, { b: 'c' }] });
    assert.deepEqual(got.empty, []);
    assert.equal(got.nul, null);
  });
});

describe('find', () => {
  beforeEach(async () => {
    await db.collection('p').insertMany([
      { _id: 1, name: 'ann', age: 31, city: 'Oslo', tags: ['a', 'b'], addr: { zip: '0150' } },
      { _id: 2, name: 'bob', age: 25, city: 'Bergen', tags: ['b'], addr: { zip: '5003' } },
      { _id: 3, name: 'cid', age: 40, city: 'Oslo', tags: [] },
      { _id: 4, name: 'dee', age: 25, city: null, tags: ['c'] },
      { _id: 5, name: 'eve' },
    ]);
  });

  const cases = [
    [{ age: 25 }, [2, 4]],
    [{ age: { $ne: 25 } }, [1, 3, 5]],
    [{ age: { $gt: 25, $lte: 40 } }, [1, 3]],
    [{ age: { $in: [31, 40] } }, [1, 3]],
    [{ age: { $nin: [31, 40] } }, [2, 4, 5]],
    [{ age: { $exists: false } }, [5]],
    [{ $or: [{ city: 'Bergen' }, { age: 40 }] }, [2, 3]],
    [{ $and: [{ city: 'Oslo' }, { age: { $lt: 35 } }] }, [1]],
    [{ 'addr.zip': '5003' }, [2]],
    [{ tags: 'b' }, [1, 2]],
    [{ city: null }, [4, 5]],
  ];
  for (const [filter, expected] of cases) {
    test(`filter ${JSON.stringify(filter)}`, async () => {
      const docs = await db.collection('p').find(filter).sort({ _id: 1 }).toArray();
      assert.deepEqual(docs.map((d) => d._id), expected);
    });
  }

  test('sort, skip, limit and projection', async () => {
    const docs = await db.collection('p').find({}, { projection: { name: 1, _id: 0 } })
      .sort({ age: -1, _id: 1 }).skip(1).limit(2).toArray();
    assert.deepEqual(docs, [{ name: 'ann' }, { name: 'bob' }]);
  });

  test('countDocuments, estimatedDocumentCount and distinct', async () => {
    const p = db.collection('p');
    assert.equal(await p.countDocuments({ city: 'Oslo' }), 2);
    assert.equal(await p.estimatedDocumentCount(), 5);
    assert.deepEqual((await p.distinct('city')).sort(), ['Bergen', 'Oslo', null].sort());
    assert.deepEqual((await p.distinct('tags')).sort(), ['a', 'b', 'c']);
  });

  test('aggregate with $match, $group and $sort', async () => {
    const rows = await db.collection('p').aggregate([
      { $match: { age: { $exists: true } } },
      { $group: { _id: '$age', n: { $sum: 1 } } },
      { $sort: { _id: 1 } },
    ]).toArray();
    assert.deepEqual(rows, [{ _id: 25, n: 2 }, { _id: 31, n: 1 }, { _id: 40, n: 1 }]);
  });
});

describe('update and delete', () => {
  beforeEach(async () => {
    await db.collection('u').insertMany(Array.from({ length: 6 }, (_, i) => ({ _id: i, n: i, even: i % 2 === 0 })));
  });

  test('updateOne with $set/$inc/$unset', async () => {
    const r = await db.collection('u').updateOne({ _id: 1 }, { $set: { s: 'x' }, $inc: { n: 10 }, $unset: { even: '' } });
    assert.equal(r.matchedCount, 1);
    assert.equal(r.modifiedCount, 1);
    assert.deepEqual(await db.collection('u').findOne({ _id: 1 }), { _id: 1, n: 11, s: 'x' });
  });

  test('updateMany changes every match', async () => {
    const r = await db.collection('u').updateMany({ even: true }, { $set: { tagged: true } });
    assert.equal(r.matchedCount, 3);
    assert.equal(r.modifiedCount, 3);
  });

  test('replaceOne and upsert', async () => {
    await db.collection('u').replaceOne({ _id: 2 }, { replaced: true });
    assert.deepEqual(await db.collection('u').findOne({ _id: 2 }), { _id: 2, replaced: true });
    const r = await db.collection('u').updateOne({ _id: 100 }, { $set: { up: 1 } }, { upsert: true });
    assert.equal(r.upsertedCount, 1);
    assert.equal(r.upsertedId, 100);
  });

  test('findOneAndUpdate returns the document after when asked', async () => {
    const doc = await db.collection('u').findOneAndUpdate({ _id: 3 }, { $inc: { n: 1 } }, { returnDocument: 'after' });
    assert.deepEqual(doc, { _id: 3, n: 4, even: false });
  });

  test('deleteOne and deleteMany', async () => {
    assert.equal((await db.collection('u').deleteOne({ even: true })).deletedCount, 1);
    assert.equal((await db.collection('u').deleteMany({ even: false })).deletedCount, 3);
    assert.equal(await db.collection('u').countDocuments(), 2);
  });

  test('bulkWrite mixes operations', async () => {
    const r = await db.collection('u').bulkWrite([
      { insertOne: { document: { _id: 50 } } },
      { updateOne: { filter: { _id: 0 }, update: { $set: { b: 1 } } } },
      { deleteOne: { filter: { _id: 5 } } },
    ]);
    assert.equal(r.insertedCount, 1);
    assert.equal(r.modifiedCount, 1);
    assert.equal(r.deletedCount, 1);
  });
});

describe('databases and collections', () => {
  test('listDatabases, listCollections, rename and drop', async () => {
    await db.collection('one').insertOne({ _id: 1 });
    await db.collection('two').insertOne({ _id: 1 });
    const dbs = await client.db('admin').admin().listDatabases();
    assert.ok(dbs.databases.some((d) => d.name === db.databaseName));
    const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort();
    assert.deepEqual(names, ['one', 'two']);
    await db.collection('one').rename('three');
    await db.collection('two').drop();
    const after = (await db.listCollections().toArray()).map((c) => c.name);
    assert.deepEqual(after, ['three']);
    assert.ok(await db.dropDatabase());
  });

  test('unknown command fails with code 59', async () => {
    await assert.rejects(db.command({ definitelyNotACommand: 1 }), (err) => err.code === 59);
  });
});

describe('views', () => {
  test('a view reads through its pipeline, lists as a view and refuses writes with 166', async () => {
    await db.collection('people').insertMany([
      { _id: 1, name: 'ann', age: 31 }, { _id: 2, name: 'bob', age: 12 },
      { _id: 3, name: 'cid', age: 45 }, { _id: 4, name: 'dee', age: 31 },
    ]);
    await db.createCollection('adults', {
      viewOn: 'people', pipeline: [{ $match: { age: { $gte: 18 } } }, { $project: { age: 1 } }],
    });
    const adults = db.collection('adults');
    assert.deepEqual(await adults.find({}, { sort: { age: -1, _id: 1 }, batchSize: 1 }).toArray(),
      [{ _id: 3, age: 45 }, { _id: 1, age: 31 }, { _id: 4, age: 31 }]);
    assert.equal(await adults.countDocuments({ age: 31 }), 2);
    assert.equal(await adults.estimatedDocumentCount(), 3);
    assert.deepEqual((await adults.distinct('age')).sort(), [31, 45]);
    assert.deepEqual(await adults.aggregate([{ $group: { _id: null, n: { $sum: 1 } } }]).toArray(),
      [{ _id: null, n: 3 }]);
    const [info] = await db.listCollections({ type: 'view' }).toArray();
    assert.equal(info.name, 'adults');
    assert.equal(info.options.viewOn, 'people');
    await assert.rejects(adults.insertOne({ age: 50 }), (err) => {
      assert.ok(err instanceof MongoServerError, String(err));
      assert.equal(err.code, 166);
      assert.equal(err.codeName, 'CommandNotSupportedOnView');
      return true;
    });
    assert.equal(await db.collection('people').countDocuments(), 4);
  });
});
