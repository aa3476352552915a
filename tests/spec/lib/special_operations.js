'use strict';
// Special test operations (object "testRunner"): fail points, session and collection
// assertions, entity creation, threads, event waits and topology checks.

const { exactEqual } = require('./match');
const { AssertionFailure } = require('./errors');
const { eventMatches } = require('./events');
const { createEntities, NotImplementedError } = require('./entities');
const { listNames } = require('./entity_operations');

const kTxnStates = {
  NO_TRANSACTION: 'none',
  STARTING_TRANSACTION: 'starting',
  TRANSACTION_IN_PROGRESS: 'in_progress',
  TRANSACTION_COMMITTED: 'committed',
  TRANSACTION_COMMITTED_EMPTY: 'committed',
  TRANSACTION_ABORTED: 'aborted',
};

async function collectionExists(ctx, dbName, collName) {
  const names = await ctx.runner.internalClient.db(dbName)
    .listCollections({ name: collName }, { nameOnly: true }).toArray();
  return names.some((c) => c.name === collName);
}

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
      .then(() => ctx.runOperation(a.operation, ctx))
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

module.exports = { testRunnerOps };
