// The Node.js driver against quarryd --auth: the first user through the localhost exception,
// SCRAM-SHA-256 (with speculative authentication in the handshake) and SCRAM-SHA-1, a wrong
// password, and a role's limits.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { MongoClient } from 'mongodb';

import { serveThisFile } from './quarry_server.mjs';

const fixture = serveThisFile('auth', {
  extraArgs: ['--auth'],
  setUp: async ({ connect }) => {
    const anonymous = await connect();
    await anonymous.db('admin').command({ createUser: 'root', pwd: 'rootpw', roles: ['root'] });
  },
});

function uriFor(user, password, options = '') {
  const { host, port } = fixture.server;
  const credentials = `${user}:${encodeURIComponent(password)}`;
  return `mongodb://${credentials}@${host}:${port}/?authSource=admin${options}`;
}

async function withClient(uri, body) {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5000 });
  try {
    await client.connect();
    return await body(client);
  } finally {
    await client.close();
  }
}

test('SCRAM-SHA-256 and SCRAM-SHA-1 sign in and the user can work', async () => {
  for (const mechanism of ['SCRAM-SHA-256', 'SCRAM-SHA-1', null]) {
    const options = mechanism ? `&authMechanism=${mechanism}` : '';
    await withClient(uriFor('root', 'rootpw', options), async (client) => {
      const coll = client.db('nodeauth').collection('items');
      await coll.insertOne({ mechanism: mechanism ?? 'default' });
      const status = await client.db('admin').command({ connectionStatus: 1 });
      assert.deepEqual(status.authInfo.authenticatedUsers, [{ user: 'root', db: 'admin' }]);
    });
  }
});

test('the handshake authenticates speculatively', async () => {
  const before = await withClient(uriFor('root', 'rootpw'), (c) => c.db('admin')
    .command({ serverStatus: 1 }));
  await withClient(uriFor('root', 'rootpw'), (c) => c.db('admin').command({ ping: 1 }));
  const after = await withClient(uriFor('root', 'rootpw'), (c) => c.db('admin')
    .command({ serverStatus: 1 }));
  const count = (s) => s.security.authentication.mechanisms['SCRAM-SHA-256']
    .speculativeAuthenticate.successful;
  assert.ok(count(after) > count(before), 'the driver signed in through hello');
});

test('a wrong password fails with AuthenticationFailed', async () => {
  await assert.rejects(
    withClient(uriFor('root', 'not-it'), (c) => c.db('admin').command({ ping: 1 })),
    (error) => error.code === 18 && /Authentication failed/.test(error.message),
  );
});

test('a read user may read but not write', async () => {
  await withClient(uriFor('root', 'rootpw'), (c) => c.db('admin').command({
    createUser: 'nodereader', pwd: 'r', roles: [{ role: 'read', db: 'nodeauth' }],
  }));
  await withClient(uriFor('nodereader', 'r'), async (client) => {
    const coll = client.db('nodeauth').collection('items');
    assert.ok((await coll.countDocuments()) >= 1);
    await assert.rejects(coll.insertOne({ denied: true }),
      (error) => error.code === 13 && /not authorized on nodeauth/.test(error.message));
  });
});
