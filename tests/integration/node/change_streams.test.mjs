// Change streams with the Node.js `mongodb` 7.x driver against a real quarryd: the shape a chat
// application relies on (insert then update of a message, delivered in order).
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';

import { serveThisFile } from './quarry_server.mjs';

const fixture = serveThisFile('change-streams', { dbPrefix: 'node_cs' });
let client;
let db;
beforeEach(() => {
  ({ client, db } = fixture);
});

// The next change of `stream`, or a rejection after `ms`.
async function nextChange(stream, ms = 5000) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no change event within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([stream.next(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('collection.watch()', () => {
  test('receives insert and update events of a chat message in order', async () => {
    const messages = db.collection('messages');
    const stream = messages.watch([], { maxAwaitTimeMS: 300 });
    try {
      // The driver sends the aggregate lazily; tryNext() starts the stream before the writes.
      assert.equal(await stream.tryNext(), null);
      const { insertedId } = await messages.insertOne({ user: 'ann', message: 'hello' });
      await messages.updateOne({ _id: insertedId }, { $set: { message: 'hello, world' } });

      const inserted = await nextChange(stream);
      assert.equal(inserted.operationType, 'insert');
      assert.deepEqual(inserted.ns, { db: db.databaseName, coll: 'messages' });
      assert.deepEqual(inserted.documentKey, { _id: insertedId });
      assert.equal(inserted.fullDocument.message, 'hello');
      assert.equal(inserted.fullDocument.user, 'ann');

      const updated = await nextChange(stream);
      assert.equal(updated.operationType, 'update');
      assert.deepEqual(updated.documentKey, { _id: insertedId });
      assert.equal(updated.updateDescription.updatedFields.message, 'hello, world');
      assert.deepEqual(updated.updateDescription.removedFields, []);
      assert.ok(updated.clusterTime.greaterThan(inserted.clusterTime));
    } finally {
      await stream.close();
    }
  });

  test('the "change" event listener delivers each insert once, in order', async () => {
    const messages = db.collection('messages');
    const stream = messages.watch([], { maxAwaitTimeMS: 300 });
    const seen = [];
    const allSeen = new Promise((resolve) => {
      stream.on('change', (change) => {
        seen.push(change.fullDocument.message);
        if (seen.length === 3) resolve();
      });
    });
    try {
      // Give the listener's aggregate time to reach the server before writing.
      await new Promise((r) => setTimeout(r, 500));
      for (const message of ['one', 'two', 'three']) await messages.insertOne({ message });
      let timer;
      await Promise.race([allSeen, new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`only saw ${JSON.stringify(seen)}`)), 5000);
      })]);
      clearTimeout(timer);
      assert.deepEqual(seen, ['one', 'two', 'three']);
    } finally {
      await stream.close();
    }
  });

  test('fullDocument updateLookup gives the whole message with an update', async () => {
    const messages = db.collection('messages');
    const { insertedId } = await messages.insertOne({ user: 'bob', message: 'hi' });
    const stream = messages.watch([], { fullDocument: 'updateLookup', maxAwaitTimeMS: 300 });
    try {
      assert.equal(await stream.tryNext(), null);
      await messages.updateOne({ _id: insertedId }, { $set: { message: 'hi there' } });
      const updated = await nextChange(stream);
      assert.equal(updated.operationType, 'update');
      assert.deepEqual(updated.fullDocument, { _id: insertedId, user: 'bob', message: 'hi there' });
    } finally {
      await stream.close();
    }
  });
});
