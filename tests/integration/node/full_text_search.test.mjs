// Atlas Search full text through the Node.js driver's own helpers against a real quarryd:
// createSearchIndex, listSearchIndexes polled until READY, $search (text, compound with a range
// filter, autocomplete, highlight, sort), $searchMeta (counts and facets), $$SEARCH_META, $search
// inside $unionWith, updateSearchIndex and dropSearchIndex. The pytest twins are
// ../vector/test_full_text_search.py and ../vector/test_search_facets_and_sort.py.
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

// Movies in the shape of Atlas's sample_mflix: genres an array (or missing), year a number (or an
// array), released a date (or missing). Inserted in _id order: equal sort keys keep that order.
const MOVIES = [
  { _id: 1, title: 'The Great Train Robbery', genres: ['Short', 'Western'], year: 1903,
    released: new Date('1903-12-01'), plot: 'A gang of bandits rob a train' },
  { _id: 2, title: 'Traffic in Souls', genres: ['Crime', 'Drama'], year: 1913,
    released: new Date('1913-11-24'), plot: 'A young woman is sold by a gang' },
  { _id: 3, title: 'The Kid', genres: ['Comedy', 'Drama', 'Family'], year: 1921,
    released: new Date('1921-03-06'), plot: 'The tramp cares for a kid left in the street' },
  { _id: 4, title: 'Nosferatu', genres: ['Horror'], year: 1922,
    released: new Date('1922-03-04'), plot: 'A vampire comes to the town by train' },
  { _id: 5, title: 'Sherlock Jr.', genres: ['Action', 'Comedy', 'Comedy'], year: [1924, 1925],
    released: new Date('1925-01-01'),
    plot: 'A projectionist dreams he is a detective on the train' },
  { _id: 6, title: 'The Gold Rush', genres: [], year: 1925.5,
    released: new Date('1925-06-26'), plot: 'The tramp seeks gold in the cold' },
  { _id: 7, title: 'Metropolis', genres: ['Drama', 'Sci-Fi'], year: 1927,
    plot: 'The city of the future and the workers below it' },
  { _id: 8, title: 'Sunrise', genres: ['Drama', 'Romance'], year: 1927,
    released: new Date('1927-10-06'), plot: 'A farmer takes his wife to the city by train' },
  { _id: 9, title: 'The Jazz Singer', year: 1927,
    released: new Date('1927-10-06'), plot: 'The son of a cantor sings jazz on a train' },
];
const FACET_INDEX = { mappings: { dynamic: false, fields: {
  genres: [{ type: 'stringFacet' }, { type: 'token' }],
  year: [{ type: 'numberFacet' }, { type: 'number' }],
  released: [{ type: 'dateFacet' }, { type: 'date' }],
  plot: { type: 'string' },
} } };
const DAY_MS = 24 * 3600 * 1000;

async function movies() {
  const coll = db.collection('movies');
  await coll.insertMany(MOVIES.map((m) => ({ ...m })));
  const name = await coll.createSearchIndex({ name: 'default', definition: FACET_INDEX });
  assert.equal(name, 'default');
  await waitReady(coll, 'default');
  return coll;
}

const asList = (v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const numbersOf = (m) => asList(m.year).filter((v) => typeof v === 'number');
const datesOf = (m) => asList(m.released).filter((v) => v instanceof Date);

// The numBuckets most frequent genres, each movie counted once per genre, ties by value.
function genreBuckets(docs, numBuckets = 10) {
  const counts = new Map();
  for (const m of docs) {
    for (const g of new Set(asList(m.genres))) counts.set(g, (counts.get(g) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, numBuckets).map(([_id, count]) => ({ _id, count }));
}

// [b_i, b_i+1) in boundary order, a movie counted once per range it has a value in; then the
// default bucket of the movies with a value outside every range.
function rangeBuckets(docs, valuesOf, boundaries, defaultName) {
  const counts = boundaries.slice(1).map(() => 0);
  let outside = 0;
  const at = (v) => +v;
  for (const m of docs) {
    const values = valuesOf(m);
    counts.forEach((_, i) => {
      if (values.some((v) => at(boundaries[i]) <= at(v) && at(v) < at(boundaries[i + 1]))) {
        counts[i] += 1;
      }
    });
    if (values.some((v) => at(v) < at(boundaries[0]) || at(v) >= at(boundaries.at(-1)))) {
      outside += 1;
    }
  }
  const buckets = counts.map((count, i) => ({ _id: boundaries[i], count }));
  return defaultName === undefined ? buckets : [...buckets, { _id: defaultName, count: outside }];
}

// near's score: pivot / (pivot + the distance of the nearest date to origin, in milliseconds).
function nearScores(docs, origin, pivot) {
  const scores = new Map();
  for (const m of docs) {
    const dates = datesOf(m);
    if (dates.length === 0) continue;
    const nearest = Math.min(...dates.map((d) => Math.abs(d - origin)));
    scores.set(m._id, pivot / (pivot + nearest));
  }
  return scores;
}

describe('facets, sort and $$SEARCH_META with the driver helpers', () => {
  test('$searchMeta counts string, number and date facets of the operator\'s matches', async () => {
    const coll = await movies();
    const origin = new Date('1921-11-01');
    const pivot = 90 * DAY_MS;
    const yearBounds = [1910, 1920, 1930, 1940];
    const releaseBounds = [new Date('1900-01-01'), new Date('1915-01-01'), new Date('1925-01-01')];
    const facets = {
      genresFacet: { type: 'string', path: 'genres' },
      yearFacet: { type: 'number', path: 'year', boundaries: yearBounds, default: 'other' },
      releasedFacet: { type: 'date', path: 'released', boundaries: releaseBounds },
    };
    // Atlas's "How to Use Facets": near a release date as the operator.
    const got = await coll.aggregate([{ $searchMeta: { facet: {
      operator: { near: { path: 'released', origin, pivot } }, facets } } }]).toArray();
    const matched = MOVIES.filter((m) => nearScores(MOVIES, origin, pivot).has(m._id));
    assert.equal(matched.length, 8);
    assert.deepEqual(got, [{ count: { lowerBound: 8 }, facet: {
      genresFacet: { buckets: genreBuckets(matched) },
      yearFacet: { buckets: rangeBuckets(matched, numbersOf, yearBounds, 'other') },
      releasedFacet: { buckets: rangeBuckets(matched, datesOf, releaseBounds) },
    } }]);
    assert.deepEqual(got[0].facet.genresFacet.buckets.slice(0, 2),
      [{ _id: 'Drama', count: 3 }, { _id: 'Comedy', count: 2 }]);
    assert.deepEqual(got[0].facet.yearFacet.buckets, [{ _id: 1910, count: 1 },
      { _id: 1920, count: 6 }, { _id: 1930, count: 0 }, { _id: 'other', count: 1 }]);
    // Without an operator every movie counts; a string facet needs a token or stringFacet path.
    const all = await coll.aggregate([{ $searchMeta: { count: { type: 'total' }, facet: {
      facets: { g: { type: 'string', path: 'genres', numBuckets: 2 } } } } }]).toArray();
    assert.deepEqual(all, [{ count: { total: MOVIES.length },
      facet: { g: { buckets: genreBuckets(MOVIES, 2) } } }]);
    await assert.rejects(coll.aggregate([{ $searchMeta: { facet: {
      facets: { p: { type: 'string', path: 'plot' } } } } }]).toArray(),
    (err) => err.code === 2 && /Cannot facet on field/.test(err.message));
  });

  test('$search sort orders by release date, newest first, then by searchScore', async () => {
    const coll = await movies();
    const got = await coll.aggregate([
      { $search: {
        compound: { should: [text('train', 'plot'), text('tramp city', 'plot')] },
        sort: { released: -1, score: { $meta: 'searchScore' } },
      } },
      { $project: { _id: 1, released: 1, score: { $meta: 'searchScore' } } },
    ]).toArray();
    const scores = new Map([...bm25(MOVIES, 'plot', 'train')]);
    for (const [id, s] of bm25(MOVIES, 'plot', 'tramp city')) {
      scores.set(id, (scores.get(id) ?? 0) + s);
    }
    const releasedOf = (id) => Math.max(...datesOf(MOVIES.find((m) => m._id === id)).map(Number));
    const expected = [...scores].sort((a, b) => {
      const [ra, rb] = [releasedOf(a[0]), releasedOf(b[0])];  // -Infinity: no date, lowest
      return rb - ra || b[1] - a[1] || a[0] - b[0];
    });
    assertResults(got, expected);
    // 8 and 9 share a release date: the better score first. 7 has none: last.
    assert.deepEqual(got.slice(0, 2).map((d) => d._id).sort(), [8, 9]);
    assert.ok(got[0].score > got[1].score);
    assert.equal(got.at(-1)._id, 7);
    // Year ascending: [1924, 1925] sorts as 1924.
    const byYear = await coll.aggregate([
      { $search: { exists: { path: 'year' }, sort: { year: 1 } } }, { $project: { _id: 1 } },
    ]).toArray();
    assert.deepEqual(byYear.map((d) => d._id), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  test('$$SEARCH_META gives the total beside a page, and $search facets', async () => {
    const coll = await movies();
    const expected = ranked(bm25(MOVIES, 'plot', 'the a'), MOVIES).map(([id]) => id);
    const [page] = await coll.aggregate([
      { $search: { ...text('the a', 'plot'), count: { type: 'total' } } },
      { $skip: 2 }, { $limit: 3 },
      { $facet: { docs: [{ $project: { _id: 1 } }],
        meta: [{ $replaceWith: '$$SEARCH_META' }, { $limit: 1 }] } },
      { $set: { meta: { $arrayElemAt: ['$meta', 0] } } },
    ]).toArray();
    assert.deepEqual(page.docs.map((d) => d._id), expected.slice(2, 5));
    assert.deepEqual(page.meta, { count: { total: expected.length } });
    // $search with a facet collector: its operator's documents, the facets in $$SEARCH_META.
    const trains = bm25(MOVIES, 'plot', 'train');
    const got = await coll.aggregate([
      { $search: { facet: { operator: text('train', 'plot'),
        facets: { genres: { type: 'string', path: 'genres' } } } } },
      { $project: { score: { $meta: 'searchScore' }, meta: '$$SEARCH_META' } },
    ]).toArray();
    assertResults(got, ranked(trains, MOVIES));
    const matched = MOVIES.filter((m) => trains.has(m._id));
    for (const d of got) {
      assert.deepEqual(d.meta, { count: { lowerBound: matched.length },
        facet: { genres: { buckets: genreBuckets(matched) } } });
    }
    // Without a $search, $$SEARCH_META is missing.
    const plain = await coll.aggregate([{ $match: { _id: 1 } },
      { $project: { meta: '$$SEARCH_META' } }]).toArray();
    assert.deepEqual(plain, [{ _id: 1 }]);
  });
});

// Atlas Search's queryString operator (Lucene's classic QueryParser syntax). The pytest twin is
// ../vector/test_search_query_string.py.
const queryString = (query, extra = {}) => (
  { queryString: { defaultPath: 'plot', query, ...extra } });

describe('queryString with the driver', () => {
  test('queryString scores as the compound of text and phrase clauses it stands for', async () => {
    const coll = await films();
    const same = async (query, operator, ids) => {
      const got = await search(coll, queryString(query));
      const want = await search(coll, operator);
      assert.deepEqual(got.map((d) => d._id).sort(), ids, query);
      assert.deepEqual(got.map((d) => d._id), want.map((d) => d._id), query);
      got.forEach((d, i) => assertClose(d.score, want[i].score, `${query}: score of ${d._id}`));
      return got;
    };
    // Parentheses group, AND requires, - prohibits; scores add up like BM25 over the terms.
    const got = await same('fox AND (dog OR river) -hound', { compound: {
      must: [text('fox', 'plot'),
        { compound: { should: [text('dog', 'plot'), text('river', 'plot')] } }],
      mustNot: [text('hound', 'plot')],
    } }, [1, 2, 3]);
    const scores = bm25(FILMS, 'plot', 'fox dog river');
    assertResults(got, ranked(new Map([1, 2, 3].map((id) => [id, scores.get(id)])), FILMS));
    // Lucene's precedence: AND makes the clause before it required, a clause after OR optional.
    await same('fox AND dog OR river', { compound: {
      must: [text('fox', 'plot'), text('dog', 'plot')], should: [text('river', 'plot')],
    } }, [1, 2]);
    // field: searches another field; quotes make a phrase; lowercase "and" is a word.
    await same('title:river OR "quick brown"', { compound: {
      should: [text('river', 'title'), { phrase: { query: 'quick brown', path: 'plot' } }],
    } }, [1, 3, 6]);
    await same('hound and monolith', text('hound and monolith', 'plot'), [2, 4, 5]);
    // A boost on one clause; a score option on the whole.
    await same('fox^3 river', { compound: { should: [
      { text: { query: 'fox', path: 'plot', score: { boost: { value: 3 } } } },
      text('river', 'plot'),
    ] } }, [1, 2, 3, 5, 6]);
    const constant = await search(coll, queryString('fox', { score: { constant: { value: 5 } } }));
    assert.deepEqual(constant.map((d) => [d._id, d.score]), [[1, 5], [2, 5], [3, 5], [5, 5]]);
  });

  test('queryString errors and $searchMeta counts', async () => {
    const coll = await films();
    const failsWith = (code, operator) => assert.rejects(search(coll, operator),
      (err) => err.code === code, JSON.stringify(operator));
    await failsWith(2, { queryString: { query: 'fox' } });
    await failsWith(2, { queryString: { defaultPath: 'plot' } });
    await failsWith(2, { queryString: { defaultPath: 'plot', query: 7 } });
    await failsWith(2, queryString('fox', { foo: 1 }));
    for (const query of ['(fox', '"quick brown', 'fox AND', '', 'fox~1.5', '*ox']) {
      await failsWith(2, queryString(query));
    }
    await failsWith(238, queryString('*:fox'));
    const every = await coll.aggregate([
      { $searchMeta: { ...queryString('*:*'), count: { type: 'total' } } },
    ]).toArray();
    assert.equal(every[0].count.total, await coll.countDocuments());
    // Title terms from "q" up to, not including, "r": quick (1) and quiet (6).
    for (const [query, n] of [['fox -hound', 3], ['title:[q TO r}', 2], ['-fox', 0]]) {
      const got = await coll.aggregate([
        { $searchMeta: { ...queryString(query), count: { type: 'total' } } },
      ]).toArray();
      assert.deepEqual(got, [{ count: { total: n } }], query);
    }
  });
});

// Atlas Search's embeddedDocuments mapping and embeddedDocument operator: each element of
// `items` is a small document of its own, matched and scored (BM25 over the elements) by itself.
// The pytest twin is ../vector/test_search_embedded_documents.py.
const BASKETS = [
  { _id: 1, title: 'Fruit',
    items: [{ name: 'red apple', color: 'red' }, { name: 'green pear', color: 'green' }] },
  { _id: 2, title: 'Pie',
    items: [{ name: 'green apple', color: 'green' }, { name: 'butter', color: 'yellow' }] },
  { _id: 3, title: 'Crate', items: [{ name: 'apple', color: 'red' },
    { name: 'big apple', color: 'green' }, { name: 'small apple tart', color: 'red' }] },
  { _id: 4, title: 'Juice', items: { name: 'apple apple juice', color: 'yellow' } },
  { _id: 5, title: 'Nothing' },
];
const BASKET_INDEX = { mappings: { dynamic: true, fields: { items: { type: 'embeddedDocuments',
  fields: { name: { type: 'string' }, color: { type: 'token' } } } } } };

async function baskets() {
  const coll = db.collection('baskets');
  await coll.insertMany(BASKETS.map((b) => structuredClone(b)));
  await coll.createSearchIndex({ name: 'default', definition: BASKET_INDEX });
  await waitReady(coll, 'default');
  return coll;
}

// One document {_id: '<basket>.<n>', name} per element of `items` (an array, or one document).
const basketElements = BASKETS.flatMap((b) => asList(b.items)
  .map((item, n) => ({ _id: `${b._id}.${n}`, name: item.name })));

const AGGREGATES = {
  sum: (s) => s.reduce((a, b) => a + b, 0),
  maximum: (s) => Math.max(...s),
  minimum: (s) => Math.min(...s),
  mean: (s) => s.reduce((a, b) => a + b, 0) / s.length,
};

// {basket _id: the aggregate of its matching elements' scores}.
function combine(elementScores, aggregate) {
  const grouped = new Map();
  for (const [id, score] of elementScores) {
    const parent = Number(id.split('.')[0]);
    grouped.set(parent, [...(grouped.get(parent) ?? []), score]);
  }
  return new Map([...grouped].map(([id, scores]) => [id, AGGREGATES[aggregate](scores)]));
}

const embeddedDocument = (operator, aggregate) => ({ embeddedDocument: { path: 'items', operator,
  ...(aggregate ? { score: { embedded: { aggregate } } } : {}) } });
const isColor = (value) => ({ equals: { path: 'items.color', value } });
const idsOf = (docs) => docs.map((d) => d._id).sort();

describe('embeddedDocument with the driver', () => {
  test('a basket matches when one element meets every clause; scores aggregate per element',
    async () => {
      const coll = await baskets();
      // 1 has a red apple and a green pear, never a green apple.
      const greenApple = { compound: { must: [text('apple', 'items.name'), isColor('green')] } };
      assert.deepEqual(idsOf(await search(coll, embeddedDocument(greenApple))), [2, 3]);
      const redPear = { compound: { must: [text('pear', 'items.name'), isColor('red')] } };
      assert.deepEqual(await search(coll, embeddedDocument(redPear)), []);
      // Outside embeddedDocument, the elements' fields are not there; the root is dynamic.
      assert.deepEqual(await search(coll, text('apple', 'items.name')), []);
      assert.deepEqual(await search(coll, isColor('green')), []);
      assertResults(await search(coll, text('crate juice', 'title')),
        ranked(bm25(BASKETS, 'title', 'crate juice'), BASKETS));
      // BM25 over the 8 elements, then sum (the default), maximum, minimum or mean per basket.
      const apple = bm25(basketElements, 'name', 'apple');
      assert.equal(apple.size, 6);
      assertResults(await search(coll, embeddedDocument(text('apple', 'items.name'))),
        ranked(combine(apple, 'sum'), BASKETS));
      for (const aggregate of Object.keys(AGGREGATES)) {
        const got = await search(coll, embeddedDocument(text('apple', 'items.name'), aggregate));
        assertResults(got, ranked(combine(apple, aggregate), BASKETS));
      }
      const greens = await search(coll, embeddedDocument(isColor('green')));
      assert.deepEqual(greens.map((d) => [d._id, d.score]), [[1, 1], [2, 1], [3, 1]]);
    });

  test('$searchMeta counts baskets, not elements; malformed embeddedDocument is BadValue',
    async () => {
      const coll = await baskets();
      const count = async (operator) => (await coll.aggregate([
        { $searchMeta: { ...operator, count: { type: 'total' } } }]).toArray())[0].count.total;
      assert.equal(await count(embeddedDocument(text('apple', 'items.name'))), 4);
      assert.equal(await count(embeddedDocument({ compound: {
        must: [text('apple', 'items.name'), isColor('red')] } })), 2);
      assert.equal(await count({ compound: { must: [text('fruit crate', 'title'),
        embeddedDocument(text('apple', 'items.name'))] } }), 2);
      const failsWith = (code, operator) => assert.rejects(search(coll, operator),
        (err) => err.code === code, JSON.stringify(operator));
      const apple = text('apple', 'items.name');
      await failsWith(2, { embeddedDocument: { operator: apple } });
      await failsWith(2, { embeddedDocument: { path: 'items' } });
      await failsWith(2, { embeddedDocument: { path: 'title', operator: text('pie', 'title') } });
      await failsWith(2, embeddedDocument(text('pie', 'title')));
      await failsWith(2, embeddedDocument(apple, 'median'));
      await failsWith(2, { embeddedDocument: { path: 'items', operator: apple, foo: 1 } });
    });
});

// Atlas Search's multi analyzers: a string field analyzed once more under a name, searched through
// the path {value, multi}. The pytest twin is ../vector/test_search_multi_analyzers.py.
describe('multi analyzers with the driver', () => {
  test('a multi path searches what its analyzer made of the field, with its own statistics',
    async () => {
      const english = { type: 'string', analyzer: 'lucene.english' };
      const keyword = { type: 'string', analyzer: 'lucene.keyword' };
      const coll = await films({ mappings: { dynamic: false, fields: {
        title: { type: 'string', multi: { keyword } },
        plot: { type: 'string', analyzer: 'lucene.standard', multi: { english } },
      } } });
      // The plots mapped with lucene.english itself, in a second index over the same films.
      await coll.createSearchIndex({ name: 'english',
        definition: { mappings: { dynamic: false, fields: { plot: english } } } });
      await waitReady(coll, 'english');
      const plotEnglish = { value: 'plot', multi: 'english' };
      const same = (got, want) => {
        assert.ok(want.length > 0);
        assert.deepEqual(got.map((d) => d._id), want.map((d) => d._id));
        got.forEach((d, i) => assert.ok(Math.abs(d.score - want[i].score) <= 1e-6 * want[i].score,
          `score of ${d._id}: ${d.score} is not ${want[i].score}`));
      };
      // English stems: "running" finds the plots that say "runs"; the plot itself holds no
      // "running", and its own statistics are those of lucene.standard's terms.
      assert.deepEqual(await search(coll, text('running', 'plot')), []);
      assert.deepEqual(idsOf(await search(coll, text('running', plotEnglish))), [3, 5]);
      for (const query of ['running', 'running dogs', 'the jumping foxes']) {
        same(await search(coll, text(query, plotEnglish)),
          await search(coll, text(query, 'plot'), { index: 'english' }));
      }
      same(await search(coll, { phrase: { query: 'fox runs', path: plotEnglish } }),
        await search(coll, { phrase: { query: 'fox runs', path: 'plot' } }, { index: 'english' }));
      // A path array adds the plain title's BM25 to the English plot's.
      const plots = new Map((await search(coll, text('fox river', 'plot'), { index: 'english' }))
        .map((d) => [d._id, d.score]));
      const scores = bm25(FILMS, 'title', 'fox river');
      for (const [id, s] of plots) scores.set(id, (scores.get(id) ?? 0) + s);
      const got = await search(coll, text('fox river', ['title', plotEnglish]));
      assert.deepEqual(got.map((d) => d._id), ranked(scores, FILMS).map(([id]) => id));
      got.forEach((d) => assert.ok(Math.abs(d.score - scores.get(d._id)) <= 1e-6 * d.score));
      // Keyword: the whole title, case and all.
      const titleKeyword = { value: 'title', multi: 'keyword' };
      assert.deepEqual(idsOf(await search(coll, text('River Run', titleKeyword))), [3]);
      assert.deepEqual(await search(coll, text('river run', titleKeyword)), []);
      const [meta] = await coll.aggregate([
        { $searchMeta: { ...text('running', plotEnglish), count: { type: 'total' } } }]).toArray();
      assert.deepEqual(meta, { count: { total: 2 } });
      // Errors: a multi the field lacks, an operator that takes none; highlighting one.
      const failsWith = (code, stage) => assert.rejects(
        coll.aggregate([{ $search: stage }]).toArray(),
        (err) => err.code === code, JSON.stringify(stage));
      await failsWith(2, text('running', { value: 'plot', multi: 'nope' }));
      await failsWith(2, text('running', { value: 'title', multi: 'english' }));
      await failsWith(2, { autocomplete: { query: 'run', path: plotEnglish } });
      await failsWith(238, { ...text('running', plotEnglish), highlight: { path: plotEnglish } });
    });
});

// Atlas Search's geo mapping on points, geoWithin and near with a GeoJSON origin. The pytest twin
// is ../vector/test_search_geo.py.
const point = (lng, lat) => ({ type: 'Point', coordinates: [lng, lat] });
const PLACES = [
  { _id: 1, name: 'Paris', location: point(2.3522, 48.8566) },
  { _id: 2, name: 'Versailles', location: point(2.1301, 48.8049) },
  { _id: 3, name: 'London', location: point(-0.1276, 51.5072) },
  { _id: 4, name: 'Suva', location: point(178.4419, -18.1416) }, // Fiji
  { _id: 5, name: 'Apia', location: point(-171.7514, -13.8333) }, // Samoa, across longitude 180
  { _id: 6, name: 'Sydney', location: point(151.2093, -33.8688) },
  { _id: 7, name: 'Dover Calais ferry',
    location: [point(1.3136, 51.1279), point(1.8587, 50.9513)] },
  { _id: 8, name: 'Legacy pair', location: [2.3522, 48.8566] }, // no GeoJSON point: never found
  { _id: 9, name: 'Out of range', location: point(200, 10) },
];

// Meters along a great circle, on Lucene's mean earth radius.
function haversine([lng1, lat1], [lng2, lat2]) {
  const rad = (deg) => (deg * Math.PI) / 180;
  const h = Math.sin(rad(lat2 - lat1) / 2) ** 2
    + Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(rad(lng2 - lng1) / 2) ** 2;
  return 2 * 6371008.7714 * Math.asin(Math.sqrt(h));
}

describe('geo with the driver', () => {
  test('geoWithin finds the points in a circle, a box across longitude 180 and a polygon; '
    + 'near ranks by great-circle distance', async () => {
    const coll = db.collection('places');
    await coll.insertMany(PLACES.map((p) => structuredClone(p)));
    const definition = { mappings: { dynamic: false, fields: {
      name: { type: 'string' }, location: { type: 'geo' } } } };
    assert.equal(await coll.createSearchIndex({ name: 'default', definition }), 'default');
    assert.deepEqual((await waitReady(coll, 'default')).latestDefinition, definition);
    const within = async (region) => (await search(coll, { geoWithin: { path: 'location',
      ...region } })).map((d) => [d._id, d.score]);
    const paris = point(2.3522, 48.8566);
    // Versailles is 17 km from Paris; Calais 236 km, Dover 263 km, London 344 km.
    assert.deepEqual(await within({ circle: { center: paris, radius: 50000 } }), [[1, 1], [2, 1]]);
    assert.deepEqual(await within({ circle: { center: paris, radius: 300000 } }),
      [[1, 1], [2, 1], [7, 1]]);
    // bottomLeft's longitude above topRight's: the box crosses the antimeridian.
    assert.deepEqual(await within({ box: { bottomLeft: point(170, -25),
      topRight: point(-170, -10) } }), [[4, 1], [5, 1]]);
    assert.deepEqual(await within({ box: { bottomLeft: point(-170, -40),
      topRight: point(170, -10) } }), [[6, 1]]);
    const france = [[-2, 42], [8, 43], [7, 51.5], [-1, 50], [-2, 42]];
    assert.deepEqual(await within({ geometry: { type: 'Polygon', coordinates: [france] } }),
      [[1, 1], [2, 1]]);
    // near: pivot / (pivot + meters to the nearest point); the ferry is as near as Calais.
    const origin = [10, 50];
    const pivot = 100000;
    const scores = new Map();
    for (const place of PLACES) {
      const held = asList(place.location).filter((l) => l.type === 'Point'
        && Math.abs(l.coordinates[0]) <= 180 && Math.abs(l.coordinates[1]) <= 90);
      if (held.length === 0) continue;
      const d = Math.min(...held.map((l) => haversine(origin, l.coordinates)));
      scores.set(place._id, pivot / (pivot + d));
    }
    assert.deepEqual([...scores.keys()], [1, 2, 3, 4, 5, 6, 7]);
    const got = await search(coll, { near: { path: 'location', origin: point(...origin), pivot } });
    const expected = ranked(scores, PLACES);
    assert.deepEqual(got.map((d) => d._id), expected.map(([id]) => id));
    got.forEach((d, i) => assert.ok(Math.abs(d.score - expected[i][1]) <= 1e-6 * expected[i][1],
      `score of ${d._id}: ${d.score} is not ${expected[i][1]}`));
    // With text, in $searchMeta, and the errors.
    const nearParis = { geoWithin: { path: 'location',
      circle: { center: paris, radius: 300000 } } };
    assert.deepEqual(idsOf(await search(coll, { compound: { must: [nearParis],
      mustNot: [text('ferry', 'name')] } })), [1, 2]);
    const [meta] = await coll.aggregate([
      { $searchMeta: { ...nearParis, count: { type: 'total' } } }]).toArray();
    assert.deepEqual(meta, { count: { total: 3 } });
    const failsWith = (code, operator) => assert.rejects(search(coll, operator),
      (err) => err.code === code, JSON.stringify(operator));
    await failsWith(2, { geoWithin: { path: 'location' } });
    await failsWith(2, { geoWithin: { path: 'location', circle: { center: paris, radius: -1 } } });
    await failsWith(2, { geoWithin: { path: 'location', geometry: { type: 'Polygon',
      coordinates: [france.slice(0, -1)] } } });
    await failsWith(2, { near: { path: 'location', origin: paris } });
    await failsWith(238, { geoShape: { path: 'location', relation: 'within',
      geometry: { type: 'Polygon', coordinates: [france] } } });
    await assert.rejects(coll.createSearchIndex({ name: 'shapes', definition: { mappings: {
      dynamic: false, fields: { location: { type: 'geo', indexShapes: true } } } } }),
    (err) => err.code === 238);
  });
});
