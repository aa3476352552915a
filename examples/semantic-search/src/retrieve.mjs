// Step 5, retrieve: the ways the tutorial asks the vector store for chunks.
import { ContextualCompressionRetriever } from '@langchain/classic/retrievers/contextual_compression';
import { EmbeddingsFilter } from '@langchain/classic/retrievers/document_compressors/embeddings_filter';

// The chunks nearest to the question.
export function similaritySearch(vectorStore, question, k = 3) {
  return vectorStore.similaritySearch(question, k);
}

// The same, among the chunks of one source file only: $vectorSearch's `filter`, applied before
// the nearest neighbours are chosen.
export function similaritySearchInSource(vectorStore, question, source, k = 3) {
  return vectorStore.similaritySearch(question, k, { preFilter: { source: { $eq: source } } });
}

// Relevant but unlike each other: maximal marginal relevance picks `k` of the `fetchK` nearest.
export function diverseSearch(vectorStore, question, { k = 3, fetchK = 10, lambda = 0.5 } = {}) {
  return vectorStore.maxMarginalRelevanceSearch(question, { k, fetchK, lambda });
}

// Pairs [document, score]; the score is $vectorSearch's vectorSearchScore.
export function similaritySearchWithScore(vectorStore, question, k = 3) {
  return vectorStore.similaritySearchWithScore(question, k);
}

// Fetches `fetchK` chunks, then keeps those whose own embedding is at least `similarityThreshold`
// similar (cosine) to the question's.
export function compressedRetriever(vectorStore, embeddings, { fetchK = 6, similarityThreshold = 0.55 } = {}) {
  return new ContextualCompressionRetriever({
    baseCompressor: new EmbeddingsFilter({ embeddings, similarityThreshold, k: undefined }),
    baseRetriever: vectorStore.asRetriever({ k: fetchK }),
  });
}
