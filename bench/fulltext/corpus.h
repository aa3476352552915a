// The full-text comparison's data: a vocabulary of pseudo-words, documents whose words are drawn
// from it with Zipf-like weights, the words each kind of query searches for, and how many
// documents each query must match. Everything follows from the seed alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace quarry::bench {

struct CorpusSettings {
  std::size_t documents = 100'000;
  std::size_t vocabulary = 20'000;  // distinct words
  std::uint64_t seed = 42;
  // Word of rank r (from 0) is drawn with probability proportional to 1 / (r + 1)^exponent.
  double zipf_exponent = 1.1;
  std::size_t min_title_words = 5;
  std::size_t max_title_words = 10;
  std::size_t min_body_words = 35;
  std::size_t max_body_words = 45;
};

// Words of 2 to 4 consonant-vowel syllables (an optional closing consonant), lowercase ASCII
// letters only, so that PostgreSQL's `simple` configuration and Lucene's whitespace analyzer
// make the same token of each; all distinct, the most often drawn first.
std::vector<std::string> MakeVocabulary(std::size_t count, std::uint64_t seed);

struct Document {
  std::vector<std::uint32_t> title;  // word numbers, into Corpus::words
  std::vector<std::uint32_t> body;
};

class Corpus {
 public:
  // Generates settings.documents documents; the same settings give the same corpus.
  explicit Corpus(const CorpusSettings& settings);

  const std::vector<std::string>& words() const { return words_; }
  const std::vector<Document>& documents() const { return documents_; }
  // The document's title or body as text: its words with single spaces between.
  std::string Text(const std::vector<std::uint32_t>& word_numbers) const;
  // How many documents hold word `word` in their title or body.
  std::size_t DocumentFrequency(std::uint32_t word) const { return frequency_[word]; }
  // How many documents hold at least one of `words`.
  std::size_t DocumentsHoldingAny(const std::vector<std::uint32_t>& words) const;
  std::size_t TokenCount() const { return tokens_; }

 private:
  std::vector<std::string> words_;
  std::vector<Document> documents_;
  std::vector<std::size_t> frequency_;  // by word number
  std::size_t tokens_ = 0;
};

// One kind of query, run in turn over several word sets so that no single answer sits in a
// cache: each entry of `queries` is one query's words, OR'd.
struct QueryClass {
  std::string name;         // "common word", "mid word", "rare word", "two mid words OR'd"
  std::string description;  // how its words were chosen
  std::vector<std::vector<std::uint32_t>> queries;
};

inline constexpr std::size_t kQueriesPerClass = 5;

// The word sets of each class, from the corpus's document frequencies: the kQueriesPerClass most
// frequent words; those whose frequency is nearest 1% of the documents; those nearest 0.01%
// (at least 3 documents, never a word no document holds); and pairs of the mid-frequency words.
struct QueryWords {
  QueryClass common;
  QueryClass mid;
  QueryClass rare;
  QueryClass pairs;
};
QueryWords ChooseQueryWords(const Corpus& corpus);

// The query's words as one string, separated by `separator` (" " for Quarry's text operator,
// " | " for PostgreSQL's to_tsquery).
std::string JoinWords(const Corpus& corpus, const std::vector<std::uint32_t>& words,
                      const std::string& separator);

}  // namespace quarry::bench
