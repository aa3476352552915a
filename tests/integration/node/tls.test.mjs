// The Node.js driver over TLS: a requireTLS quarryd that asks for client certificates, with a
// CA and certificates made by `openssl` for this file; compression over TLS; a client without a
// certificate is refused while the server goes on.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';

import { MongoClient } from 'mongodb';

import { serveThisFile } from './quarry_server.mjs';

const dir = mkdtempSync(path.join(os.tmpdir(), 'quarry-node-certs-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function openssl(...args) {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}

function signed(name, extensions) {
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`,
    '-subj', `/CN=${name}`);
  writeFileSync(path.join(dir, `${name}.ext`), extensions);
  openssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key',
    '-CAcreateserial', '-days', '2', '-out', `${name}.crt`, '-extfile', `${name}.ext`);
  const pem = path.join(dir, `${name}.pem`);
  writeFileSync(pem, readFileSync(path.join(dir, `${name}.crt`), 'utf8') +
    readFileSync(path.join(dir, `${name}.key`), 'utf8'));
  return pem;
}

openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-keyout', 'ca.key',
  '-out', 'ca.pem', '-subj', '/CN=ca');
const ca = path.join(dir, 'ca.pem');
const serverPem = signed('server', 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
const clientPem = signed('client', 'extendedKeyUsage=clientAuth\n');

const fixture = serveThisFile('tls', {
  extraArgs: ['--tlsMode', 'requireTLS', '--tlsCertificateKeyFile', serverPem, '--tlsCAFile', ca],
});

const tlsOptions = { tls: true, tlsCAFile: ca, tlsCertificateKeyFile: clientPem };

test('the driver reads and writes over TLS with a client certificate', async () => {
  const client = await fixture.connect('', tlsOptions);
  const coll = client.db('node_tls').collection('items');
  await coll.insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: i, v: `value ${i}` })));
  assert.equal(await coll.countDocuments(), 20);
  assert.deepEqual(await coll.findOne({ _id: 7 }), { _id: 7, v: 'value 7' });
});

test('zstd compression works over TLS', async () => {
  const client = await fixture.connect('compressors=zstd', tlsOptions);
  const admin = client.db('admin');
  const before = (await admin.command({ serverStatus: 1 })).network.compression.zstd;
  const coll = client.db('node_tls').collection('compressed');
  const docs = Array.from({ length: 30 }, (_, i) => ({ _id: i, text: 'repeat '.repeat(300) }));
  await coll.insertMany(docs);
  assert.deepEqual(await coll.find().sort({ _id: 1 }).toArray(), docs);
  const after = (await admin.command({ serverStatus: 1 })).network.compression.zstd;
  assert.ok(after.decompressor.bytesIn > before.decompressor.bytesIn);
  assert.ok(after.compressor.bytesOut > before.compressor.bytesOut);
});

test('a client without a certificate is refused and the server goes on', async () => {
  const refused = new MongoClient(fixture.server.uri(),
    { tls: true, tlsCAFile: ca, serverSelectionTimeoutMS: 2000 });
  await assert.rejects(refused.connect());
  await refused.close();
  const client = await fixture.connect('', tlsOptions);
  assert.equal((await client.db('admin').command({ ping: 1 })).ok, 1);
  assert.match(fixture.server.logTail(200), /TLS handshake failed/);
});
