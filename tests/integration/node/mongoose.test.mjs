// Mongoose as a real client (issue 10): a schema's indexes start with syncIndexes, and unique
// violations reach the application as the errors Mongoose users test for.
import assert from 'node:assert/strict';
import { after, beforeEach, describe, test } from 'node:test';

import mongoose from 'mongoose';

import { serveThisFile } from './quarry_server.mjs';

// Mongoose bundles its own `mongodb` driver, so `instanceof` checks need its classes, not those
// of the top-level package.
const { MongoBulkWriteError, MongoServerError } = mongoose.mongo;

let conn;
// Registered before the fixture's own `after`, which stops quarryd: hooks run in order, and the
// client should end its sessions while the server still answers.
after(async () => {
  await conn?.close();
});
serveThisFile('mongoose', {
  setUp: async ({ server }) => {
    // autoIndex off so that each test decides when indexes are built, as production apps do.
    conn = await mongoose.createConnection(server.uri(), {
      autoIndex: false, monitorCommands: true, serverSelectionTimeoutMS: 5000,
    }).asPromise();
  },
});

let db;
let counter = 0;
beforeEach(() => {
  db = conn.useDb(`node_mongoose_${counter++}`, { useCache: false });
});

// The names of the commands `fn` sends, except the driver's own monitoring and session ones.
async function commandsSentBy(fn) {
  const names = [];
  const client = conn.getClient();
  const listener = (event) => {
    if (!['hello', 'isMaster', 'ping', 'endSessions'].includes(event.commandName)) {
      names.push(event.commandName);
    }
  };
  client.on('commandStarted', listener);
  try {
    await fn();
  } finally {
    client.off('commandStarted', listener);
  }
  return names;
}

function userSchema() {
  const schema = new mongoose.Schema({
    email: { type: String, unique: true },
    city: { type: String, index: true },
    a: Number,
    b: Number,
  });
  schema.index({ a: 1, b: -1 });
  return schema;
}

async function syncedUsers() {
  const User = db.model('User', userSchema());
  await User.syncIndexes();
  return User;
}

function assertDuplicateEmail(err, email) {
  assert.ok(err instanceof MongoServerError, String(err));
  assert.equal(err.name, 'MongoServerError');
  assert.equal(err.code, 11000);
  assert.equal(err.codeName, 'DuplicateKey');
  assert.deepEqual(err.keyPattern, { email: 1 });
  assert.deepEqual(err.keyValue, { email });
  assert.match(err.message, /^E11000 duplicate key error collection: \S+\.users index: email_1/);
}

describe('schema indexes', () => {
  test('syncIndexes creates unique, single-field and compound indexes with their options', async () => {
    const User = await syncedUsers();
    const indexes = await User.listIndexes();
    const byName = Object.fromEntries(indexes.map(({ v, ...spec }) => [spec.name, spec]));
    assert.deepEqual(byName, {
      _id_: { key: { _id: 1 }, name: '_id_' },
      email_1: { key: { email: 1 }, name: 'email_1', unique: true },
      city_1: { key: { city: 1 }, name: 'city_1' },
      'a_1_b_-1': { key: { a: 1, b: -1 }, name: 'a_1_b_-1' },
    });
    assert.deepEqual(await User.diffIndexes(), { toDrop: [], toCreate: [] });
  });

  test('init() with autoIndex builds the schema indexes', async () => {
    const User = db.model('User', userSchema().set('autoIndex', true));
    await User.init();
    const names = (await User.listIndexes()).map((i) => i.name).sort();
    assert.deepEqual(names, ['_id_', 'a_1_b_-1', 'city_1', 'email_1']);
  });

  test('a second syncIndexes sends no index command and drops nothing', async () => {
    const User = await syncedUsers();
    let dropped;
    const sent = await commandsSentBy(async () => {
      dropped = await User.syncIndexes();
    });
    assert.deepEqual(dropped, []);
    assert.deepEqual(sent.filter((name) => /Index/.test(name)), ['listIndexes']);
  });

  test('syncIndexes drops an index the schema no longer declares', async () => {
    await syncedUsers();
    const schema = new mongoose.Schema({ email: { type: String, unique: true }, city: String });
    const Trimmed = db.model('UserTrimmed', schema, 'users');
    assert.deepEqual(await Trimmed.diffIndexes(), { toDrop: ['city_1', 'a_1_b_-1'], toCreate: [] });
    assert.deepEqual((await Trimmed.syncIndexes()).sort(), ['a_1_b_-1', 'city_1']);
    const names = (await Trimmed.listIndexes()).map((i) => i.name).sort();
    assert.deepEqual(names, ['_id_', 'email_1']);
  });

  test('syncIndexes fails with 11000 when existing documents break a new unique index', async () => {
    const Loose = db.model('Loose', new mongoose.Schema({ email: String }), 'users');
    await Loose.create([{ email: 'x@example.com' }, { email: 'x@example.com' }]);
    const User = db.model('User', userSchema());
    await assert.rejects(User.syncIndexes(), (err) => {
      assert.equal(err.code, 11000, String(err));
      return true;
    });
    const names = (await User.listIndexes()).map((i) => i.name);
    assert.ok(!names.includes('email_1'), `email_1 must not survive a failed build: ${names}`);
  });

  test('findOne by an indexed field is an index scan that examines one document', async () => {
    const User = await syncedUsers();
    await User.insertMany(Array.from({ length: 50 }, (_, i) => ({ email: `u${i}@example.com`, city: `c${i % 5}` })));
    const user = await User.findOne({ email: 'u7@example.com' });
    assert.equal(user.city, 'c2');

    const explain = await User.find({ email: 'u7@example.com' }).explain('executionStats');
    const stats = explain.executionStats;
    assert.equal(stats.nReturned, 1);
    assert.equal(stats.totalKeysExamined, 1);
    assert.equal(stats.totalDocsExamined, 1);
    const ixscan = explain.queryPlanner.winningPlan.inputStage;
    assert.equal(ixscan.stage, 'IXSCAN');
    assert.equal(ixscan.indexName, 'email_1');
    assert.equal(ixscan.isUnique, true);

    const byCity = await User.find({ city: 'c3' }).explain('executionStats');
    assert.equal(byCity.queryPlanner.winningPlan.inputStage.indexName, 'city_1');
    assert.equal(byCity.executionStats.totalDocsExamined, 10);
  });

  test('a TTL index from `expires` is created with expireAfterSeconds', async () => {
    const schema = new mongoose.Schema({
      token: String,
      createdAt: { type: Date, expires: '1h' },
    });
    const Session = db.model('Session', schema);
    assert.deepEqual(await Session.syncIndexes(), []);
    const ttl = (await Session.listIndexes()).find((i) => i.name === 'createdAt_1');
    assert.deepEqual(ttl?.key, { createdAt: 1 });
    assert.equal(ttl.expireAfterSeconds, 3600);
    assert.deepEqual(await Session.diffIndexes(), { toDrop: [], toCreate: [] });
    // Mongoose compares expireAfterSeconds to decide whether to rebuild: a reply in another
    // numeric form would make every start drop and recreate the index.
    assert.deepEqual(await Session.syncIndexes(), []);
    await Session.create({ token: 't', createdAt: new Date() });
    assert.equal(await Session.countDocuments(), 1);
  });
});

describe('duplicate keys', () => {
  test('create() of a duplicate unique value rejects with code 11000, keyPattern and keyValue', async () => {
    const User = await syncedUsers();
    await User.create({ email: 'ann@example.com' });
    await assert.rejects(User.create({ email: 'ann@example.com' }), (err) => {
      assertDuplicateEmail(err, 'ann@example.com');
      return true;
    });
    assert.equal(await User.countDocuments(), 1);
  });

  test('save(), updateOne() and findOneAndUpdate() into a taken value reject the same way', async () => {
    const User = await syncedUsers();
    await User.create({ email: 'ann@example.com' });
    const bob = await User.create({ email: 'bob@example.com' });
    bob.email = 'ann@example.com';
    await assert.rejects(bob.save(), (err) => {
      assertDuplicateEmail(err, 'ann@example.com');
      return true;
    });
    await assert.rejects(User.updateOne({ _id: bob._id }, { email: 'ann@example.com' }), (err) => {
      assertDuplicateEmail(err, 'ann@example.com');
      return true;
    });
    await assert.rejects(
      User.findOneAndUpdate({ _id: bob._id }, { email: 'ann@example.com' }, { new: true }),
      (err) => {
        assertDuplicateEmail(err, 'ann@example.com');
        return true;
      },
    );
    assert.equal((await User.findById(bob._id)).email, 'bob@example.com');
  });

  test('unordered insertMany reports every duplicate and inserts the rest', async () => {
    const User = await syncedUsers();
    await User.create({ email: 'ann@example.com' });
    const docs = ['bob', 'ann', 'cid', 'bob', 'dee'].map((n) => ({ email: `${n}@example.com` }));
    await assert.rejects(User.insertMany(docs, { ordered: false }), (err) => {
      assert.ok(err instanceof MongoBulkWriteError, String(err));
      assert.ok(err instanceof MongoServerError);
      assert.equal(err.code, 11000);
      assert.deepEqual(err.writeErrors.map((e) => [e.index, e.code]), [[1, 11000], [3, 11000]]);
      // The driver keeps a bulk write error's document, not the server's keyValue.
      assert.deepEqual(err.writeErrors.map((e) => e.getOperation().email),
        ['ann@example.com', 'bob@example.com']);
      assert.match(err.writeErrors[1].errmsg, /index: email_1 dup key: \{ email: "bob@example\.com" \}/);
      assert.equal(err.result.insertedCount, 3);
      assert.deepEqual(err.insertedDocs.map((d) => d.email).sort(),
        ['bob@example.com', 'cid@example.com', 'dee@example.com']);
      return true;
    });
    const emails = (await User.find().sort({ email: 1 })).map((u) => u.email);
    assert.deepEqual(emails, ['ann', 'bob', 'cid', 'dee'].map((n) => `${n}@example.com`));
  });

  test('ordered insertMany stops at the first duplicate', async () => {
    const User = await syncedUsers();
    const docs = ['ann', 'bob', 'ann', 'cid'].map((n) => ({ email: `${n}@example.com` }));
    await assert.rejects(User.insertMany(docs), (err) => {
      assert.equal(err.code, 11000, String(err));
      return true;
    });
    assert.equal(await User.countDocuments(), 2);
  });

  test('a duplicate on the compound index names both fields', async () => {
    const schema = new mongoose.Schema({ a: Number, b: Number });
    schema.index({ a: 1, b: -1 }, { unique: true });
    const Pair = db.model('Pair', schema);
    await Pair.syncIndexes();
    await Pair.create({ a: 1, b: 2 });
    await Pair.create({ a: 1, b: 3 });
    await assert.rejects(Pair.create({ a: 1, b: 2 }), (err) => {
      assert.ok(err instanceof MongoServerError, String(err));
      assert.equal(err.code, 11000);
      assert.deepEqual(err.keyPattern, { a: 1, b: -1 });
      assert.deepEqual(err.keyValue, { a: 1, b: 2 });
      return true;
    });
  });
});

describe('views', () => {
  test('a model over a view created by createCollection({viewOn, pipeline}) reads it', async () => {
    // Both models before the first await: another test's beforeEach may point `db` elsewhere.
    // The view's model must not create its collection itself (Mongoose's autoCreate, which runs
    // when the model is made): createCollection({viewOn}) below is what makes it, as
    // Mongoose's documentation of views says.
    const User = db.model('User', userSchema());
    const OsloUser = db.model('OsloUser', userSchema().set('autoCreate', false), 'oslo_users');
    await User.create([{ email: 'a@x', city: 'Oslo', a: 1 }, { email: 'b@x', city: 'Rome', a: 2 },
      { email: 'c@x', city: 'Oslo', a: 3 }]);
    await OsloUser.createCollection({
      viewOn: 'users', pipeline: [{ $match: { city: 'Oslo' } }],
    });
    const found = await OsloUser.find().sort({ a: 1 }).lean();
    assert.deepEqual(found.map((u) => u.email), ['a@x', 'c@x']);
    assert.equal(await OsloUser.countDocuments(), 2);
    await assert.rejects(OsloUser.create({ email: 'd@x', city: 'Oslo' }), (err) => {
      assert.ok(err instanceof MongoServerError, String(err));
      assert.equal(err.code, 166);
      return true;
    });
    assert.equal(await User.countDocuments(), 3);
  });
});

describe('capped collections', () => {
  test('a schema with capped {size, max} makes a capped collection that keeps the newest documents', async () => {
    const schema = new mongoose.Schema({ msg: String, n: Number }, { capped: { size: 4096, max: 3 } });
    const mine = db;  // another test's beforeEach may point `db` elsewhere after the first await
    const Log = mine.model('Log', schema);
    await Log.createCollection();
    assert.equal(await Log.collection.isCapped(), true);
    const [info] = await mine.db.listCollections({ name: 'logs' }).toArray();
    assert.deepEqual(info.options, { capped: true, size: 4096, max: 3 });
    for (const n of [5, 1, 4, 2, 3]) {
      await Log.create({ msg: `m${n}`, n });
    }
    // Insertion order, not n order, and only the last three.
    const kept = await Log.find().lean();
    assert.deepEqual(kept.map((d) => d.n), [4, 2, 3]);
    assert.equal(await Log.countDocuments(), 3);
    const newestFirst = await Log.find().sort({ $natural: -1 }).lean();
    assert.deepEqual(newestFirst.map((d) => d.msg), ['m3', 'm2', 'm4']);
  });
});

describe('text indexes', () => {
  test('a weighted text index syncs once and find ranks by textScore', async () => {
    const schema = new mongoose.Schema({ title: String, body: String });
    schema.index({ title: 'text', body: 'text' }, { weights: { title: 5 } });
    const Article = db.model('Article', schema);
    assert.deepEqual(await Article.syncIndexes(), []);
    const text = (await Article.listIndexes()).find((i) => i.name === 'title_text_body_text');
    assert.deepEqual(text?.key, { _fts: 'text', _ftsx: 1 });
    assert.deepEqual(text.weights, { body: 1, title: 5 });
    assert.equal(text.default_language, 'english');
    assert.equal(text.language_override, 'language');
    // Mongoose matches the stored {_fts, _ftsx} key and weights against the schema's index.
    assert.deepEqual(await Article.diffIndexes(), { toDrop: [], toCreate: [] });
    let dropped;
    const sent = await commandsSentBy(async () => {
      dropped = await Article.syncIndexes();
    });
    assert.deepEqual(dropped, []);
    assert.deepEqual(sent.filter((name) => /Index/.test(name)), ['listIndexes']);

    // Scores by mongod's formula, with title weight 5: "Roses" stems to "rose", so it is not
    // the whole-string term (no 1.1) and scores 5 x 1; "Roses in winter" ("in" is a stop word)
    // 5 x 0.75 + 1; "roses roses and tulips" (1 + 1/2) x (0.5 + 0.5 x 2/3); "red roses bloom"
    // 0.5 + 0.5 / 3.
    await Article.create([
      { title: 'Garden notes', body: 'roses roses and tulips' },
      { title: 'Roses', body: 'pruning tips' },
      { title: 'Tulips', body: 'red roses bloom' },
      { title: 'Roses in winter', body: 'roses' },
      { title: 'Cooking', body: 'pasta' },
    ]);
    const found = await Article.find({ $text: { $search: 'rose' } }, { score: { $meta: 'textScore' } })
      .sort({ score: { $meta: 'textScore' } })
      .lean();
    assert.deepEqual(found.map((a) => a.title), ['Roses', 'Roses in winter', 'Garden notes', 'Tulips']);
    const expected = [5, 4.75, 1.25, 2 / 3];
    found.forEach((a, i) => assert.ok(Math.abs(a.score - expected[i]) < 1e-9, `${a.title}: ${a.score}`));
    assert.equal(await Article.countDocuments({ $text: { $search: 'tulip -garden' } }), 1);
    const phrase = await Article.find({ $text: { $search: '"red roses"' } }).lean();
    assert.deepEqual(phrase.map((a) => a.title), ['Tulips']);
  });

  test('`text: true` on a path makes a text index that init() builds and keeps', async () => {
    const schema = new mongoose.Schema({ title: { type: String, text: true }, n: Number });
    const Note = db.model('Note', schema.set('autoIndex', true));
    await Note.init();
    const text = (await Note.listIndexes()).find((i) => i.name === 'title_text');
    assert.deepEqual(text?.key, { _fts: 'text', _ftsx: 1 });
    assert.deepEqual(text.weights, { title: 1 });
    assert.deepEqual(await Note.diffIndexes(), { toDrop: [], toCreate: [] });
    assert.deepEqual(await Note.syncIndexes(), []);
    await Note.create([{ title: 'running late', n: 1 }, { title: 'late', n: 2 }, { title: 'on time', n: 3 }]);
    const late = await Note.find({ $text: { $search: 'run' } }).lean();
    assert.deepEqual(late.map((d) => d.n), [1]);
    const both = await Note.find({ $text: { $search: 'late' }, n: { $gte: 2 } }).lean();
    assert.deepEqual(both.map((d) => d.n), [2]);
    await assert.rejects(Note.find({ $text: { $search: 'late' } }).hint({ _id: 1 }), (err) => {
      assert.ok(err instanceof MongoServerError, String(err));
      assert.equal(err.code, 2);
      assert.match(err.message, /text and hint not allowed in same query/);
      return true;
    });
  });
});
