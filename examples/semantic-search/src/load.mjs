// Step 1, load: every Markdown file of the corpus folder becomes one LangChain Document, with
// the file's name and its first heading as metadata (the name is what a pre-filter selects on).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { DirectoryLoader } from '@langchain/classic/document_loaders/fs/directory';
import { TextLoader } from '@langchain/classic/document_loaders/fs/text';

export const CORPUS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'corpus');

function firstHeading(text) {
  const match = /^#\s+(.+)$/m.exec(text);
  return match ? match[1].trim() : '';
}

export async function loadCorpus(dir = CORPUS_DIR) {
  const loader = new DirectoryLoader(dir, { '.md': (file) => new TextLoader(file) });
  const docs = await loader.load();
  // DirectoryLoader reads in directory order, which differs between file systems; sorting keeps
  // the stored order, and so the printed output, the same everywhere.
  docs.sort((a, b) => a.metadata.source.localeCompare(b.metadata.source));
  for (const doc of docs) {
    doc.metadata = { source: path.basename(doc.metadata.source), title: firstHeading(doc.pageContent) };
  }
  return docs;
}
