// Step 2, split: chunks of at most 1000 characters, cut at the largest unit that fits —
// paragraph, then line, sentence, word, and only as a last resort inside a word.
import { RecursiveCharacterTextSplitter } from '@langchain/textsplitters';

export const SPLITTER_OPTIONS = Object.freeze({
  chunkSize: 1000,
  chunkOverlap: 0,
  separators: ['\n\n', '\n', '. ', ' ', ''],
});

export async function splitDocuments(docs) {
  const splitter = new RecursiveCharacterTextSplitter({ ...SPLITTER_OPTIONS });
  return splitter.splitDocuments(docs);
}
