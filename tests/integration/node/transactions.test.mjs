// Multi-document transactions with the Node.js driver's withTransaction and with Mongoose.
import assert from 'node:assert/strict';
import { after, beforeEach, describe, test } from 'node:test';

import { MongoServerError } from 'mongodb';
import mongoose from 'mongoose';

import { serveThisFile } from './quarry_server.mjs';

const fixture = serveThisFile('transactions', { dbPrefix: 'node_txn' });
let client;
let db;
beforeEach(() => {
  ({ client, db } = fixture);
});

async function balances(accounts) {
  const docs = await accounts.find().sort({ _id: 1 }).toArray();
  return Object.fromEntries(docs.map((d) => [d._id, d.balance]));
}

describe('the Node.js driver', () => {
  test('withTransaction transfers between two documents atomically', async () => {
    const accounts = db.collection('accounts');
    await accounts.insertMany([{ _id: 'a', balance: 100 }, { _id: 'b', balance: 0 }]);
    const session = client.startSession();
    try {
      await session.withTransaction(async () => {
        await accounts.updateOne({ _id: 'a' }, { $inc: { balance: -40 } }, { session });
        // Not visible outside the transaction before it commits.
        assert.equal((await accounts.findOne({ _id: 'a' })).balance, 100);
        await accounts.updateOne({ _id: 'b' }, { $inc: { balance: 40 } }, { session });
      });
    } finally {
      await session.endSession();
    }
    assert.deepEqual(await balances(accounts), { a: 60, b: 40 });
  });

  test('an error in the callback aborts: nothing is written', async () => {
    const accounts = db.collection('accounts');
    await accounts.insertOne({ _id: 'a', balance: 10 });
    const session = client.startSession();
    try {
      await assert.rejects(session.withTransaction(async () => {
        await accounts.updateOne({ _id: 'a' }, { $inc: { balance: -10 } }, { session });
        await accounts.insertOne({ _id: 'log' }, { session });
        throw new Error('insufficient funds');
      }), /insufficient funds/);
    } finally {
      await session.endSession();
    }
    assert.deepEqual(await balances(accounts), { a: 10 });
  });

  test('withTransaction retries after a TransientTransactionError', async () => {
    const counters = db.collection('counters');
    await counters.insertOne({ _id: 1, n: 0 });
    const session = client.startSession();
    let attempts = 0;
    try {
      await session.withTransaction(async () => {
        attempts += 1;
        await counters.findOne({ _id: 1 }, { session });
        if (attempts === 1) await counters.updateOne({ _id: 1 }, { $inc: { n: 100 } });
        await counters.updateOne({ _id: 1 }, { $inc: { n: 1 } }, { session });
      });
    } finally {
      await session.endSession();
    }
    assert.equal(attempts, 2);
    assert.equal((await counters.findOne({ _id: 1 })).n, 101);
  });

  test('a write conflict carries the TransientTransactionError label', async () => {
    const docs = db.collection('docs');
    await docs.insertOne({ _id: 1, n: 0 });
    const first = client.startSession();
    const second = client.startSession();
    try {
      first.startTransaction();
      second.startTransaction();
      await docs.updateOne({ _id: 1 }, { $inc: { n: 1 } }, { session: first });
      await assert.rejects(docs.updateOne({ _id: 1 }, { $inc: { n: 1 } }, { session: second }),
        (err) => {
          assert.ok(err instanceof MongoServerError, String(err));
          assert.equal(err.code, 112);
          assert.ok(err.hasErrorLabel('TransientTransactionError'));
          return true;
        });
      await second.abortTransaction();
      await first.commitTransaction();
    } finally {
      await first.endSession();
      await second.endSession();
    }
    assert.equal((await docs.findOne({ _id: 1 })).n, 1);
  });
});

describe('Mongoose', () => {
  let conn;
  after(async () => {
    await conn?.close();
  });

  test('connection.transaction commits a transfer and rolls back a failed one', async () => {
    conn = await mongoose.createConnection(fixture.server.uri(), {
      serverSelectionTimeoutMS: 5000,
    }).asPromise();
    const Account = conn.useDb('node_txn_mongoose').model('Account',
      new mongoose.Schema({ _id: String, balance: Number }));
    await Account.create([{ _id: 'x', balance: 50 }, { _id: 'y', balance: 50 }]);

    await conn.transaction(async (session) => {
      await Account.updateOne({ _id: 'x' }, { $inc: { balance: -25 } }, { session });
      await Account.updateOne({ _id: 'y' }, { $inc: { balance: 25 } }, { session });
    });
    await assert.rejects(conn.transaction(async (session) => {
      await Account.updateOne({ _id: 'x' }, { $inc: { balance: -25 } }, { session });
      throw new Error('declined');
    }), /declined/);

    const docs = await Account.find().sort({ _id: 1 }).lean();
    assert.deepEqual(docs.map((d) => d.balance), [25, 75]);
  });
});
