// examples/semantic-search (MongoDB's LangChain.js semantic-search tutorial) against a fresh
// quarryd: its five steps with the offline Universal Sentence Encoder embeddings, the answers
// they give, and that nothing but quarryd is contacted. The example keeps its own node_modules
// (`npm ci --prefix examples/semantic-search`); without them the file is skipped.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { REPO_ROOT, serveThisFile } from './quarry_server.mjs';

const EXAMPLE_DIR = path.join(REPO_ROOT, 'examples', 'semantic-search');
const installed = existsSync(path.join(EXAMPLE_DIR, 'node_modules', '@langchain', 'mongodb'));
const skip = installed ? false
  : 'examples/semantic-search/node_modules is missing: run npm ci --prefix examples/semantic-search';

// Every socket this process opens is recorded, so a download by the embedding model (or
// anything else) shows up as a connection to a host other than quarryd's.
const remoteHosts = [];
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);
const originalConnect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function recordingConnect(...args) {
  const options = Array.isArray(args[0]) ? args[0][0] : args[0];
  const host = typeof options === 'object' ? options?.host : args[1];
  const isIpc = typeof options === 'object' ? options?.path !== undefined : typeof options === 'string';
  if (!isIpc && !LOOPBACK.has(host ?? 'localhost')) remoteHosts.push(host);
  return originalConnect.apply(this, args);
};

function importExample(file) {
  return import(pathToFileURL(path.join(EXAMPLE_DIR, file)).href);
}

function cosine(a, b) {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i += 1) {
    dot += a[i] * b[i];
    normA += a[i] * a[i];
    normB += b[i] * b[i];
  }
  return dot / Math.sqrt(normA * normB);
}

function runExample(uri) {
  const env = { ...process.env, MONGODB_URI: uri };
  delete env.OPENAI_API_KEY;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['index.mjs'], { cwd: EXAMPLE_DIR, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('semantic-search example', { skip }, () => {
  const fixture = installed ? serveThisFile('semantic_search') : null;
  let steps;
  let embeddings;
  let chunks;
  let collection;
  let vectorStore;
  let listedIndex;
  let client;

  after(() => client?.close());

  before(async () => {
    const [load, split, embed, store, retrieve] = await Promise.all(
      ['load', 'split', 'embeddings', 'store', 'retrieve'].map((f) => importExample(`src/${f}.mjs`)));
    steps = { ...load, ...split, ...embed, ...store, ...retrieve };
    // The example's own driver, the one @langchain/mongodb is built against.
    const { MongoClient } = createRequire(path.join(EXAMPLE_DIR, 'index.mjs'))('mongodb');
    client = new MongoClient(fixture.server.uri(), { serverSelectionTimeoutMS: 5000 });
    collection = client.db('semantic_search_test').collection('chunks');

    const docs = await steps.loadCorpus();
    chunks = await steps.splitDocuments(docs);
    embeddings = new steps.UniversalSentenceEncoderEmbeddings();
    ({ vectorStore, index: listedIndex } = await steps.storeChunks(collection, chunks, {
      embeddings, dimensions: steps.USE_LITE_DIMENSIONS,
    }));
  });

  test('the corpus is split at paragraphs into chunks of at most 1000 characters', async () => {
    const docs = await steps.loadCorpus();
    assert.ok(docs.length >= 6, `${docs.length} documents`);
    assert.ok(chunks.length > docs.length, 'some document is longer than one chunk');
    for (const chunk of chunks) {
      assert.ok(chunk.pageContent.length <= 1000, `${chunk.pageContent.length} characters`);
      assert.ok(!chunk.pageContent.startsWith('\n') && !chunk.pageContent.endsWith('\n'));
    }
    const sources = new Set(chunks.map((c) => c.metadata.source));
    assert.deepEqual([...sources].sort(), docs.map((d) => d.metadata.source).sort());
  });

  test('every chunk is stored with a 512-dimension embedding under a READY index', async () => {
    assert.equal(await collection.countDocuments(), chunks.length);
    const stored = await collection.findOne({}, { projection: { _id: 0 } });
    assert.equal(stored.embedding.length, 512);
    assert.equal(typeof stored.text, 'string');
    assert.equal(typeof stored.source, 'string');
    assert.equal(listedIndex.status, 'READY');
    assert.equal(listedIndex.queryable, true);
    assert.equal(listedIndex.latestDefinition.fields[0].numDimensions, 512);
  });

  const questions = [
    ['Does Quarry compress network messages with snappy or zstd?', 'wire-compression.md'],
    ['How are documents stored on disk?', 'storage.md'],
    ['Which similarity functions can a vector index use?', 'vector-search.md'],
    ['What happens when an unordered batch has duplicate keys?', 'bulk-writes.md'],
  ];
  for (const [question, source] of questions) {
    test(`the top chunk for "${question}" comes from ${source}`, async () => {
      const docs = await steps.similaritySearch(vectorStore, question, 3);
      assert.equal(docs.length, 3);
      assert.equal(docs[0].metadata.source, source);
      assert.equal(docs[0].metadata.embedding, undefined, 'embeddings are projected away');
    });
  }

  test('a pre-filter on source restricts the answers to that file', async () => {
    const question = 'How are documents stored on disk?';
    const unfiltered = await steps.similaritySearch(vectorStore, question, 3);
    assert.notEqual(unfiltered[0].metadata.source, 'wire-compression.md');
    const inFile = chunks.filter((c) => c.metadata.source === 'wire-compression.md');
    const filtered = await steps.similaritySearchInSource(vectorStore, question, 'wire-compression.md', 3);
    assert.equal(filtered.length, Math.min(3, inFile.length));
    for (const doc of filtered) assert.equal(doc.metadata.source, 'wire-compression.md');
  });

  test('MMR returns distinct chunks, starting with the most similar one', async () => {
    const question = 'What does Quarry do with my documents?';
    const nearest = await steps.similaritySearch(vectorStore, question, 1);
    const diverse = await steps.diverseSearch(vectorStore, question, { k: 3, fetchK: 10, lambda: 0.5 });
    assert.equal(diverse.length, 3);
    assert.equal(new Set(diverse.map((d) => String(d.metadata._id))).size, 3);
    assert.equal(new Set(diverse.map((d) => d.pageContent)).size, 3);
    assert.equal(diverse[0].pageContent, nearest[0].pageContent);
    for (const doc of diverse) assert.equal(doc.metadata.embedding, undefined);
  });

  test('scores are the cosine similarity mapped to [0, 1], best first', async () => {
    const question = 'Which similarity functions can a vector index use?';
    const scored = await steps.similaritySearchWithScore(vectorStore, question, 4);
    assert.equal(scored.length, 4);
    const queryVector = await embeddings.embedQuery(question);
    const docVectors = await embeddings.embedDocuments(scored.map(([doc]) => doc.pageContent));
    scored.forEach(([, score], i) => {
      const expected = (1 + cosine(queryVector, docVectors[i])) / 2;
      assert.ok(Math.abs(score - expected) < 1e-3, `score ${score}, cosine gives ${expected}`);
      if (i > 0) assert.ok(score <= scored[i - 1][1], 'scores descend');
    });
  });

  test('contextual compression keeps only the fetched chunks similar enough to the question', async () => {
    const question = 'Which compression algorithms can a connection use?';
    const threshold = 0.55;
    const fetched = await steps.similaritySearch(vectorStore, question, 6);
    const retriever = steps.compressedRetriever(vectorStore, embeddings,
      { fetchK: 6, similarityThreshold: threshold });
    const kept = await retriever.invoke(question);
    const queryVector = await embeddings.embedQuery(question);
    const fetchedVectors = await embeddings.embedDocuments(fetched.map((d) => d.pageContent));
    const expected = fetched.filter((_, i) => cosine(queryVector, fetchedVectors[i]) > threshold);
    assert.ok(expected.length > 0 && expected.length < fetched.length,
      'the threshold separates the fetched chunks');
    assert.deepEqual(kept.map((d) => d.pageContent).sort(), expected.map((d) => d.pageContent).sort());
    assert.equal(kept[0].metadata.source, 'wire-compression.md');
  });

  test('index.mjs runs the five steps and prints what each found', async () => {
    const { code, stdout, stderr } = await runExample(fixture.server.uri());
    assert.equal(code, 0, stderr);
    for (const step of ['1. load', '2. split', '3. embed', '4. store', '5. retrieve']) {
      assert.match(stdout, new RegExp(`^${step.replace('.', '\\.')}`, 'm'));
    }
    assert.match(stdout, new RegExp(`^ {2}${chunks.length} chunks of at most 1000 characters$`, 'm'));
    assert.match(stdout, /Universal Sentence Encoder lite \(offline\), 512 dimensions/);
    assert.match(stdout, /search index: READY/);
    assert.match(stdout, new RegExp(`^ {2}${chunks.length} chunks stored$`, 'm'));
  });

  test('the offline embeddings download nothing: quarryd is the only host contacted', async () => {
    await embeddings.embedQuery('one more question');
    assert.deepEqual(remoteHosts, []);
  });
});
