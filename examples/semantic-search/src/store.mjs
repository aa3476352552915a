// Step 4, store: the chunks and their embeddings go into a collection through LangChain's
// MongoDBAtlasVectorSearch, and a vector search index over them is created with the driver's
// createSearchIndex; searches wait until $listSearchIndexes reports it READY and queryable.
import { MongoDBAtlasVectorSearch } from '@langchain/mongodb';

export const INDEX_NAME = 'vector_index';
export const TEXT_KEY = 'text';
export const EMBEDDING_KEY = 'embedding';
// Metadata fields a $vectorSearch pre-filter may use must be declared in the index.
export const FILTER_PATHS = ['source'];

export function vectorIndexModel(dimensions) {
  return {
    name: INDEX_NAME,
    type: 'vectorSearch',
    definition: {
      fields: [
        { type: 'vector', path: EMBEDDING_KEY, numDimensions: dimensions, similarity: 'cosine' },
        ...FILTER_PATHS.map((p) => ({ type: 'filter', path: p })),
      ],
    },
  };
}

// Resolves with the index's last $listSearchIndexes entry once it is READY and queryable; calls
// `onStatus` each time the status changes, so a caller can show PENDING → BUILDING → READY.
export async function waitUntilQueryable(collection, name, { timeoutMs = 60_000, onStatus } = {}) {
  const deadline = Date.now() + timeoutMs;
  let lastStatus = null;
  for (;;) {
    const [index] = await collection.listSearchIndexes(name).toArray();
    if (index && index.status !== lastStatus) {
      lastStatus = index.status;
      onStatus?.(index.status);
    }
    if (index?.status === 'READY' && index.queryable) return index;
    if (index?.status === 'FAILED') throw new Error(`search index ${name} failed: ${JSON.stringify(index)}`);
    if (Date.now() > deadline) {
      throw new Error(`search index ${name} not queryable after ${timeoutMs} ms: ${JSON.stringify(index)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

// Starts from an empty collection, so running the example twice gives the same answers.
export async function storeChunks(collection, chunks, { embeddings, dimensions, onStatus }) {
  await collection.drop().catch((err) => {
    if (err.codeName !== 'NamespaceNotFound') throw err;
  });
  await collection.db.createCollection(collection.collectionName);
  const vectorStore = new MongoDBAtlasVectorSearch(embeddings, {
    collection,
    indexName: INDEX_NAME,
    textKey: TEXT_KEY,
    embeddingKey: EMBEDDING_KEY,
  });
  const ids = await vectorStore.addDocuments(chunks);
  await collection.createSearchIndex(vectorIndexModel(dimensions));
  const index = await waitUntilQueryable(collection, INDEX_NAME, { onStatus });
  return { vectorStore, ids, index };
}
