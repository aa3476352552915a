// The Node.js driver's search-index helpers and $vectorSearch against a real quarryd: what
// LangChain's MongoDB vector store calls (createSearchIndex, listSearchIndexes polling for
// READY, updateSearchIndex, dropSearchIndex). The pytest twin is ../vector/test_vector_search.py.
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';

import { serveThisFile } from './quarry_server.mjs';

const fixture = serveThisFile('search_indexes', { dbPrefix: 'node_search' });
let db;
beforeEach(() => {
  ({ db } = fixture);
});

async function waitReady(collection, name) {
  for (let i = 0; i < 200; i += 1) {
    const [index] = await collection.listSearchIndexes(name).toArray();
    if (index?.status === 'READY') return index;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`search index ${name} never became READY`);
}

function vectorSearch(collection, queryVector, limit, filter) {
  const stage = { index: 'vector_index', path: 'embedding', queryVector, numCandidates: 50, limit };
  if (filter) stage.filter = filter;
  return collection.aggregate([
    { $vectorSearch: stage },
    { $project: { _id: 1, score: { $meta: 'vectorSearchScore' } } },
  ]).toArray();
}

describe('search-index helpers', () => {
  test('create, poll until READY, query, update and drop', async () => {
    const coll = db.collection('docs');
    await coll.insertMany([
      { _id: 1, embedding: [1, 0, 0], tag: 'a' },
      { _id: 2, embedding: [0, 1, 0], tag: 'b' },
      { _id: 3, embedding: [0.9, 0.1, 0], tag: 'b' },
    ]);
    const name = await coll.createSearchIndex({
      name: 'vector_index',
      type: 'vectorSearch',
      definition: {
        fields: [
          { type: 'vector', path: 'embedding', numDimensions: 3, similarity: 'cosine' },
          { type: 'filter', path: 'tag' },
        ],
      },
    });
    assert.equal(name, 'vector_index');
    const listed = await waitReady(coll, 'vector_index');
    assert.equal(listed.type, 'vectorSearch');
    assert.equal(listed.queryable, true);
    assert.equal(listed.latestDefinition.fields[0].numDimensions, 3);

    const hits = await vectorSearch(coll, [1, 0, 0], 2);
    assert.deepEqual(hits.map((h) => h._id), [1, 3]);
    assert.ok(Math.abs(hits[0].score - 1) < 1e-6);
    const filtered = await vectorSearch(coll, [1, 0, 0], 2, { tag: 'b' });
    assert.deepEqual(filtered.map((h) => h._id), [3, 2]);

    // Read-your-writes: the next query sees an insert.
    await coll.insertOne({ _id: 4, embedding: [1, 0, 0.01], tag: 'a' });
    assert.deepEqual((await vectorSearch(coll, [1, 0, 0], 2)).map((h) => h._id), [1, 4]);

    await coll.updateSearchIndex('vector_index', {
      fields: [{ type: 'vector', path: 'embedding', numDimensions: 3, similarity: 'euclidean' }],
    });
    const updated = await waitReady(coll, 'vector_index');
    assert.equal(updated.latestDefinitionVersion.version, 1);
    assert.equal(updated.latestDefinition.fields[0].similarity, 'euclidean');

    await coll.dropSearchIndex('vector_index');
    assert.deepEqual(await coll.listSearchIndexes().toArray(), []);
  });

  test('an invalid definition is refused with a message naming the field', async () => {
    const coll = db.collection('bad');
    await coll.insertOne({ _id: 1 });
    await assert.rejects(
      coll.createSearchIndex({
        name: 'v',
        type: 'vectorSearch',
        definition: { fields: [{ type: 'vector', path: 'e', numDimensions: 9000, similarity: 'cosine' }] },
      }),
      (err) => err.code === 2 && /numDimensions/.test(err.message),
    );
  });
});
