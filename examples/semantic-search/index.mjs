// MongoDB's semantic-search tutorial with LangChain.js, against any MongoDB-compatible server at
// MONGODB_URI: load a Markdown corpus, split it, embed the chunks, store them with a vector
// search index, then ask questions in the tutorial's five ways.
import { MongoClient } from 'mongodb';

import { chooseEmbeddings } from './src/embeddings.mjs';
import { loadCorpus } from './src/load.mjs';
import { compressedRetriever, diverseSearch, similaritySearch, similaritySearchInSource,
  similaritySearchWithScore } from './src/retrieve.mjs';
import { splitDocuments } from './src/split.mjs';
import { storeChunks } from './src/store.mjs';

const uri = process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27017';
const DB_NAME = 'semantic_search';
const COLLECTION_NAME = 'quarry_docs';

function preview(doc) {
  const text = doc.pageContent.replace(/\s+/g, ' ');
  return `${doc.metadata.source}: ${text.length > 90 ? `${text.slice(0, 87)}...` : text}`;
}

function printDocs(docs) {
  for (const doc of docs) console.log(`  - ${preview(doc)}`);
}

async function main() {
  console.log('1. load');
  const docs = await loadCorpus();
  console.log(`  ${docs.length} documents: ${docs.map((d) => d.metadata.source).join(', ')}`);

  console.log('2. split');
  const chunks = await splitDocuments(docs);
  console.log(`  ${chunks.length} chunks of at most 1000 characters`);

  console.log('3. embed');
  const { embeddings, dimensions, name } = await chooseEmbeddings();
  console.log(`  ${name}, ${dimensions} dimensions`);

  console.log(`4. store in ${DB_NAME}.${COLLECTION_NAME} at ${uri}`);
  const client = new MongoClient(uri);
  try {
    const collection = client.db(DB_NAME).collection(COLLECTION_NAME);
    const { vectorStore, ids } = await storeChunks(collection, chunks, {
      embeddings, dimensions, onStatus: (status) => console.log(`  search index: ${status}`),
    });
    console.log(`  ${ids.length} chunks stored`);

    console.log('5. retrieve');
    const question = 'Does Quarry compress network messages with snappy or zstd?';
    console.log(`  similaritySearch: "${question}"`);
    printDocs(await similaritySearch(vectorStore, question));

    const filtered = 'How are documents stored on disk?';
    console.log(`  similaritySearch: "${filtered}"`);
    printDocs(await similaritySearch(vectorStore, filtered));
    console.log(`  the same with pre-filter source = wire-compression.md`);
    printDocs(await similaritySearchInSource(vectorStore, filtered, 'wire-compression.md'));

    const broad = 'What does Quarry do with my documents?';
    console.log(`  maxMarginalRelevanceSearch (k 3 of 10): "${broad}"`);
    printDocs(await diverseSearch(vectorStore, broad));

    const scored = 'Which similarity functions can a vector index use?';
    console.log(`  similaritySearchWithScore: "${scored}"`);
    for (const [doc, score] of await similaritySearchWithScore(vectorStore, scored)) {
      console.log(`  - ${score.toFixed(4)} ${preview(doc)}`);
    }

    const compressed = 'Which compression algorithms can a connection use?';
    const retriever = compressedRetriever(vectorStore, embeddings, { fetchK: 6, similarityThreshold: 0.55 });
    console.log(`  ContextualCompressionRetriever + EmbeddingsFilter (6 fetched, cosine > 0.55 kept): "${compressed}"`);
    printDocs(await retriever.invoke(compressed));
  } finally {
    await client.close();
  }
}

await main();
