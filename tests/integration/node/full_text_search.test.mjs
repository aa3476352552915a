// Atlas Search full text through the Node.js driver's own helpers against a real quarryd:
// createSearchIndex, listSearchIndexes polled until READY, $search (text, compound with a range
// filter, autocomplete, highlight), $searchMeta, $search inside $unionWith, updateSearchIndex and
// dropSearchIndex. The pytest twin is ../vector/test_full_text_search.py.
//
// Expected answers are computed here: lucene.standard splits at Unicode word boundaries
// (Intl.Segmenter) and lowercases, and scores are BM25 (k1 = 1.2, b = 0.75, Lucene's idf).
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';

import { serveThisFile } from './quarry_server.mjs';

const fixture = serveThisFile('full_text_search', { dbPrefix: 'node_fts' });
let db;
beforeEach(() => {
  ({ db } = fixture);
});

const K1 = 1.2;
const B = 0.75;

const FILMS = [
  { _id: 1, title: 'The Quick Brown Fox', year: 1999,
    plot: 'A quick brown fox jumps over the lazy dog near the river' },
  { _id: 2, title: 'Lazy Dog Days', year: 2005,
    plot: 'The dog sleeps all day and the fox watches the dog' },
  { _id: 3, title: 'River Run', year: 2012,
    plot: 'A boat on the river runs fast, faster than any fox' },
  { _id: 4, title: 'Space Odyssey', year: 1968,
    plot: 'Astronauts travel through space to find a monolith' },
  { _id: 5, title: 'Fox and Hound', year: 1981,
    plot: 'A fox and a hound become friends; the fox runs and the hound follows the fox' },
  { _id: 6, title: 'Quiet River', year: 2010, plot: 'Nothing happens by the quiet river' },
];
const DYNAMIC = { mappings: { dynamic: true } };

const words = new Intl.Segmenter('en', { granularity: 'word' });

function standard(value) {
  return [...words.segment(value)].filter((s) => s.isWordLike).map((s) => s.segment.toLowerCase());
}

// {_id: score} of the text operator over `path` of `docs`, for the terms of `query`.
function bm25(docs, path, query) {
  const held = new Map();
  for (const doc of docs) {
    if (typeof doc[path] !== 'string') continue;
    const terms = standard(doc[path]);
    if (terms.length > 0) held.set(doc._id, terms);
  }
  const n = held.size;
  const avgdl = [...held.values()].reduce((sum, terms) => sum + terms.length, 0) / n;
  const scores = new Map();
  for (const term of standard(query)) {
    const df = [...held.values()].filter((terms) => terms.includes(term)).length;
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    for (const [id, terms] of held) {
      const f = terms.filter((t) => t === term).length;
      if (f === 0) continue;
      const tf = f / (f + K1 * (1 - B + B * terms.length / avgdl));
      scores.set(id, (scores.get(id) ?? 0) + idf * tf);
    }
  }
  return scores;
}

// [[_id, score]] best first; equal scores in the order of `docs`.
function ranked(scores, docs) {
  const order = new Map(docs.map((d, i) => [d._id, i]));
  return [...scores].sort((a, b) => b[1] - a[1] || order.get(a[0]) - order.get(b[0]));
}

function assertClose(actual, expected, message) {
  assert.ok(Math.abs(actual - expected) <= 1e-9 * Math.abs(expected),
    `${message ?? ''} ${actual} is not ${expected}`);
}

function assertResults(got, expected) {
  assert.deepEqual(got.map((d) => d._id), expected.map(([id]) => id));
  got.forEach((d, i) => assertClose(d.score, expected[i][1], `score of ${d._id}`));
}

async function waitReady(collection, name, isWanted = () => true) {
  for (let i = 0; i < 400; i += 1) {
    const indexes = await collection.listSearchIndexes().toArray();
    const index = indexes.find((x) => x.name === name);
    if (index?.status === 'READY' && isWanted(index)) return index;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`search index ${name} never became READY`);
}

async function films(definition = DYNAMIC) {
  const coll = db.collection('films');
  await coll.insertMany(FILMS.map((f) => ({ ...f })));
  const name = await coll.createSearchIndex({ name: 'default', definition });
  assert.equal(name, 'default');
  await waitReady(coll, 'default');
  return coll;
}

function search(coll, operator, extra = {}) {
  return coll.aggregate([
    { $search: { index: 'default', ...operator, ...extra } },
    { $project: { _id: 1, score: { $meta: 'searchScore' } } },
  ]).toArray();
}

const text = (query, path) => ({ text: { query, path } });

describe('full-text search with the driver helpers', () => {
  test('createSearchIndex returns the name and the index is listed until READY', async () => {
    const coll = db.collection('films');
    await coll.insertMany(FILMS.map((f) => ({ ...f })));
    const name = await coll.createSearchIndex({ name: 'default', definition: DYNAMIC });
    assert.equal(name, 'default');
    const listed = await waitReady(coll, 'default');
    assert.equal(listed.type, 'search');
    assert.equal(listed.queryable, true);
    assert.deepEqual(listed.latestDefinition, DYNAMIC);
    assert.equal((await coll.listSearchIndexes().toArray()).length, 1);
  });

  test('$search text ranks by BM25 with searchScore', async () => {
    const coll = await films();
    for (const query of ['fox', 'fox dog', 'River', 'hound friends', 'zebra']) {
      const expected = ranked(bm25(FILMS, 'plot', query), FILMS);
      assertResults(await search(coll, text(query, 'plot')), expected);
    }
    // "dog" is in 2 plots, "fox" in 4: the two plots with a dog come first.
    const got = await search(coll, text('fox dog', 'plot'));
    assert.deepEqual(got.map((d) => d._id), [2, 1, 5, 3]);
    assert.equal(standard(FILMS[2].plot).length, 11);
  });

  test('compound with a range filter keeps the text scores of the documents in range',
    async () => {
      const coll = await films();
      const got = await search(coll, { compound: {
        must: [text('fox river', 'plot')],
        filter: [{ range: { path: 'year', gte: 1980, lt: 2010 } }],
      } });
      const inRange = new Set(FILMS.filter((f) => f.year >= 1980 && f.year < 2010).map((f) => f._id));
      const scores = new Map([...bm25(FILMS, 'plot', 'fox river')].filter(([id]) => inRange.has(id)));
      const expected = ranked(scores, FILMS);
      assert.deepEqual(expected.map(([id]) => id).sort(), [1, 2, 5]);
      assertResults(got, expected);
    });

  test('autocomplete matches the edge grams of each word of the title', async () => {
    const coll = await films({ mappings: { dynamic: false,
      fields: { title: { type: 'autocomplete' } } } });
    const grams = (word) => new Set(Array.from({ length: Math.min(word.length, 15) - 1 },
      (_, i) => word.slice(0, i + 2)));
    const matching = (query) => FILMS.filter((f) => standard(query).some(
      (q) => standard(f.title).some((w) => grams(w).has(q)))).map((f) => f._id).sort();
    let found = 0;
    for (const query of ['fo', 'Fox', 'qui', 'riv', 'od', 'ODYSS', 'x', 'ound', 'spa hou']) {
      const got = await search(coll, { autocomplete: { query, path: 'title' } });
      assert.deepEqual(got.map((d) => d._id).sort(), matching(query), query);
      assert.ok(got.every((d) => d.score > 0), query);
      found += got.length > 0;
    }
    assert.ok(found >= 6);
    assert.deepEqual(matching('qui'), [1, 6]);
    assert.deepEqual(matching('ound'), []);
  });

  test('$searchMeta counts the matching documents', async () => {
    const coll = await films();
    for (const query of ['fox', 'river dog', 'monolith', 'zebra']) {
      const n = bm25(FILMS, 'plot', query).size;
      const got = await coll.aggregate([
        { $searchMeta: { ...text(query, 'plot'), count: { type: 'total' } } },
      ]).toArray();
      assert.deepEqual(got, [{ count: { total: n } }], query);
    }
  });

  test('highlight gives the passages holding hits as text and hit parts', async () => {
    const coll = await films();
    const got = await coll.aggregate([
      { $search: { ...text('dog', 'plot'), highlight: { path: 'plot' } } },
      { $project: { _id: 1, highlights: { $meta: 'searchHighlights' } } },
    ]).toArray();
    assert.deepEqual(got.map((d) => d._id), ranked(bm25(FILMS, 'plot', 'dog'), FILMS).map(([id]) => id));
    const plot = FILMS[1].plot; // one sentence of 51 bytes, "dog" twice
    const length = Buffer.byteLength(plot);
    const score = 2 * 2.2 / (2 + 1.2 * (0.25 + 0.75 * length / 87)) * (1 + 1 / Math.log(87));
    const [second] = got.filter((d) => d._id === 2);
    assert.equal(second.highlights.length, 1);
    const [{ path, texts, score: got2 }] = second.highlights;
    assert.equal(path, 'plot');
    assert.deepEqual(texts, [
      { value: 'The ', type: 'text' },
      { value: 'dog', type: 'hit' },
      { value: ' sleeps all day and the fox watches the ', type: 'text' },
      { value: 'dog', type: 'hit' },
    ]);
    assert.equal(texts.map((t) => t.value).join(''), plot);
    assertClose(got2, score);
    const [first] = got.filter((d) => d._id === 1);
    assert.deepEqual(first.highlights.map((h) => h.texts), [[
      { value: 'A quick brown fox jumps over the lazy ', type: 'text' },
      { value: 'dog', type: 'hit' },
      { value: ' near the river', type: 'text' },
    ]]);
  });

  test('$unionWith runs a $search on the other collection', async () => {
    await films();
    const base = db.collection('base');
    await base.insertOne({ _id: 'base' });
    const got = await base.aggregate([{ $unionWith: { coll: 'films', pipeline: [
      { $search: text('river fox', 'plot') },
      { $project: { _id: 1, score: { $meta: 'searchScore' } } },
      { $limit: 3 },
    ] } }]).toArray();
    assert.deepEqual(got[0], { _id: 'base' });
    assertResults(got.slice(1), ranked(bm25(FILMS, 'plot', 'river fox'), FILMS).slice(0, 3));
  });

  test('updateSearchIndex becomes READY with the new definition in effect', async () => {
    const coll = await films();
    assert.ok((await search(coll, text('fox', 'plot'))).length > 0);
    const titlesOnly = { mappings: { dynamic: false, fields: { title: { type: 'string' } } } };
    await coll.updateSearchIndex('default', titlesOnly);
    const listed = await waitReady(coll, 'default',
      (index) => JSON.stringify(index.latestDefinition) === JSON.stringify(titlesOnly));
    assert.deepEqual(listed.latestDefinition, titlesOnly);
    assert.equal(listed.queryable, true);
    assert.deepEqual(await search(coll, text('fox', 'plot')), []);
    assertResults(await search(coll, text('fox river', 'title')),
      ranked(bm25(FILMS, 'title', 'fox river'), FILMS));
  });

  test('dropSearchIndex removes the index and $search then finds nothing', async () => {
    const coll = await films();
    await coll.dropSearchIndex('default');
    assert.deepEqual(await coll.listSearchIndexes().toArray(), []);
    assert.deepEqual(await search(coll, text('fox', 'plot')), []);
    assert.equal(await coll.countDocuments(), FILMS.length);
  });
});
