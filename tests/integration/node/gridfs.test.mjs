// GridFS with the Node.js `mongodb` 7.x driver's GridFSBucket against a real quarryd: a 100 MB
// stream uploaded and downloaded byte for byte, byte ranges by name, find and delete. The pytest
// twin is ../gridfs/test_gridfs_bucket.py.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { beforeEach, describe, test } from 'node:test';

import { GridFSBucket, MongoRuntimeError, ObjectId } from 'mongodb';

import { serveThisFile } from './quarry_server.mjs';

const MIB = 1024 * 1024;

const fixture = serveThisFile('gridfs', { dbPrefix: 'node_gridfs' });
let db;
beforeEach(() => {
  ({ db } = fixture);
});

// `size` random bytes in 4 MiB pieces, hashed as they go out.
function randomSource(size) {
  const hash = createHash('sha256');
  let left = size;
  const stream = new Readable({
    read() {
      if (left === 0) {
        this.push(null);
        return;
      }
      const piece = randomBytes(Math.min(left, 4 * MIB));
      left -= piece.length;
      hash.update(piece);
      this.push(piece);
    },
  });
  return { stream, digest: () => hash.digest('hex') };
}

// Drains a download stream into a SHA-256 and a byte count.
async function hashDownload(download) {
  const hash = createHash('sha256');
  let bytes = 0;
  await pipeline(download, new Writable({
    write(piece, _encoding, callback) {
      hash.update(piece);
      bytes += piece.length;
      callback();
    },
  }));
  return { sha256: hash.digest('hex'), bytes };
}

async function readAll(download) {
  const pieces = [];
  for await (const piece of download) pieces.push(piece);
  return Buffer.concat(pieces);
}

async function upload(bucket, name, data, options = {}) {
  const stream = bucket.openUploadStream(name, options);
  await pipeline(Readable.from([data]), stream);
  return stream.id;
}

describe('GridFSBucket', () => {
  test('a 100 MB stream downloads with the same SHA-256', async () => {
    const size = 100 * MIB;
    const bucket = new GridFSBucket(db);
    const source = randomSource(size);
    const stream = bucket.openUploadStream('big.bin', { metadata: { kind: 'random' } });

    await pipeline(source.stream, stream);
    const got = await hashDownload(bucket.openDownloadStream(stream.id));

    assert.deepEqual(got, { sha256: source.digest(), bytes: size });
    const [file] = await bucket.find({ _id: stream.id }).toArray();
    assert.equal(file.length, size);
    assert.equal(file.chunkSize, 255 * 1024);
    assert.equal(await db.collection('fs.chunks').countDocuments({ files_id: stream.id }),
      Math.ceil(size / (255 * 1024)));
  });

  test('openDownloadStreamByName with start and end returns that slice', async () => {
    const chunkSizeBytes = 1000;
    const bucket = new GridFSBucket(db, { chunkSizeBytes });
    const data = randomBytes(10_500);
    await upload(bucket, 'ranged.bin', randomBytes(10)); // an older revision
    await upload(bucket, 'ranged.bin', data);

    const ranges = [[0, 1], [0, 1000], [999, 1001], [1000, 2000], [1234, 8765], [10_000, 10_500],
      [0, 10_500], [10_499, 10_500], [5, 5]];
    for (const [start, end] of ranges) {
      const slice = await readAll(bucket.openDownloadStreamByName('ranged.bin', { start, end }));
      assert.ok(slice.equals(data.subarray(start, end)), `bytes [${start}, ${end})`);
    }
    const oldest = await readAll(bucket.openDownloadStreamByName('ranged.bin', { revision: 0 }));
    assert.equal(oldest.length, 10);
  });

  test('find filters on filename and metadata and sorts', async () => {
    const bucket = new GridFSBucket(db);
    const a = await upload(bucket, 'a.txt', Buffer.from('alpha'), { metadata: { owner: 'ann' } });
    const b = await upload(bucket, 'b.txt', Buffer.from('beta'), { metadata: { owner: 'bob' } });
    const c = await upload(bucket, 'c.txt', Buffer.from('gamma'), { metadata: { owner: 'bob' } });

    const bobs = await bucket.find({ 'metadata.owner': 'bob' }, { sort: { filename: -1 } }).toArray();
    const byName = await bucket.find({ filename: 'a.txt' }).toArray();

    assert.deepEqual(bobs.map((f) => f._id), [c, b]);
    assert.deepEqual(byName.map((f) => f._id), [a]);
    assert.equal(byName[0].length, 5);
  });

  test('delete removes the file and its chunks; deleting again fails', async () => {
    const bucket = new GridFSBucket(db, { chunkSizeBytes: 1024 });
    const keep = await upload(bucket, 'keep', randomBytes(5000));
    const gone = await upload(bucket, 'gone', randomBytes(5000));

    await bucket.delete(gone);

    assert.equal(await db.collection('fs.files').countDocuments({ _id: gone }), 0);
    assert.equal(await db.collection('fs.chunks').countDocuments({ files_id: gone }), 0);
    assert.equal(await db.collection('fs.chunks').countDocuments({ files_id: keep }), 5);
    await assert.rejects(bucket.delete(gone), (err) => {
      assert.ok(err instanceof MongoRuntimeError, String(err));
      assert.match(err.message, /File not found/);
      return true;
    });
    await assert.rejects(readAll(bucket.openDownloadStream(new ObjectId())), /FileNotFound/);
  });
});
