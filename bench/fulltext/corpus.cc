// Only std::mt19937_64's raw output is used (the standard fixes its sequence), never std's
// distributions, so a seed gives the same corpus with any standard library.
#include "bench/fulltext/corpus.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string_view>
#include <unordered_set>

namespace quarry::bench {
namespace {

constexpr std::string_view kConsonants = "bcdfghjklmnprstvwz";
constexpr std::string_view kVowels = "aeiou";

// An integer in [low, high], both inclusive.
std::size_t Between(std::mt19937_64& random, std::size_t low, std::size_t high) {
  return low + static_cast<std::size_t>(random() % (high - low + 1));
}

// A double in [0, 1) from 53 random bits.
double Fraction(std::mt19937_64& random) { return static_cast<double>(random() >> 11) * 0x1.0p-53; }

std::string PseudoWord(std::mt19937_64& random) {
  std::string word;
  const std::size_t syllables = Between(random, 2, 4);
  for (std::size_t syllable = 0; syllable < syllables; ++syllable) {
    word += kConsonants[random() % kConsonants.size()];
    word += kVowels[random() % kVowels.size()];
  }
  if (random() % 3 == 0) word += kConsonants[random() % kConsonants.size()];
  return word;
}

// Picks word numbers in [0, n) with weights 1 / (rank + 1)^exponent: a cumulative table and a
// binary search.
class ZipfWords {
 public:
  ZipfWords(std::size_t n, double exponent) : cumulative_(n) {
    double sum = 0;
    for (std::size_t rank = 0; rank < n; ++rank) {
      sum += 1.0 / std::pow(static_cast<double>(rank + 1), exponent);
      cumulative_[rank] = sum;
    }
    for (double& c : cumulative_) c /= sum;
    cumulative_.back() = 1.0;
  }

  std::uint32_t Pick(std::mt19937_64& random) const {
    const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), Fraction(random));
    return static_cast<std::uint32_t>(
        std::min<std::size_t>(it - cumulative_.begin(), cumulative_.size() - 1));
  }

 private:
  std::vector<double> cumulative_;  // normalised, last element 1.0
};

// Up to `count` words with at least `min_documents` documents, not in `taken`, whose document
// frequency is nearest `target` (ties: the more frequent word first).
std::vector<std::uint32_t> NearestFrequency(const Corpus& corpus, std::size_t target,
                                            std::size_t min_documents, std::size_t count,
                                            const std::unordered_set<std::uint32_t>& taken) {
  std::vector<std::uint32_t> candidates;
  for (std::uint32_t word = 0; word < corpus.words().size(); ++word) {
    if (corpus.DocumentFrequency(word) >= min_documents && !taken.contains(word)) {
      candidates.push_back(word);
    }
  }
  auto distance = [&](std::uint32_t word) {
    const std::size_t df = corpus.DocumentFrequency(word);
    return df > target ? df - target : target - df;
  };
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return distance(a) < distance(b); });
  candidates.resize(std::min(candidates.size(), count));
  return candidates;
}

std::vector<std::vector<std::uint32_t>> OneWordEach(const std::vector<std::uint32_t>& words) {
  std::vector<std::vector<std::uint32_t>> queries;
  for (std::uint32_t word : words) queries.push_back({word});
  return queries;
}

}  // namespace

std::vector<std::string> MakeVocabulary(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 random(seed ^ 0x766f636162756c61ULL);  // a stream of its own
  std::vector<std::string> words;
  std::unordered_set<std::string> seen;
  words.reserve(count);
  while (words.size() < count) {
    std::string word = PseudoWord(random);
    if (seen.insert(word).second) words.push_back(std::move(word));
  }
  return words;
}

Corpus::Corpus(const CorpusSettings& settings)
    : words_(MakeVocabulary(settings.vocabulary, settings.seed)),
      frequency_(settings.vocabulary, 0) {
  const ZipfWords zipf(settings.vocabulary, settings.zipf_exponent);
  std::mt19937_64 random(settings.seed);
  // The last document each word was counted for, so a repeated word counts once.
  std::vector<std::size_t> counted_in(settings.vocabulary, SIZE_MAX);
  documents_.resize(settings.documents);
  for (std::size_t doc_idx = 0; doc_idx < settings.documents; ++doc_idx) {
    Document& doc = documents_[doc_idx];
    doc.title.resize(Between(random, settings.min_title_words, settings.max_title_words));
    doc.body.resize(Between(random, settings.min_body_words, settings.max_body_words));
    for (std::vector<std::uint32_t>* part : {&doc.title, &doc.body}) {
      for (std::uint32_t& word : *part) {
        word = zipf.Pick(random);
        if (counted_in[word] != doc_idx) {
          counted_in[word] = doc_idx;
          ++frequency_[word];
        }
      }
      tokens_ += part->size();
    }
  }
}

std::string Corpus::Text(const std::vector<std::uint32_t>& word_numbers) const {
  std::string text;
  for (std::uint32_t word : word_numbers) {
    if (!text.empty()) text += ' ';
    text += words_[word];
  }
  return text;
}

std::size_t Corpus::DocumentsHoldingAny(const std::vector<std::uint32_t>& words) const {
  auto holds = [&](const std::vector<std::uint32_t>& part) {
    return std::any_of(part.begin(), part.end(), [&](std::uint32_t word) {
      return std::find(words.begin(), words.end(), word) != words.end();
    });
  };
  return static_cast<std::size_t>(
      std::count_if(documents_.begin(), documents_.end(),
                    [&](const Document& doc) { return holds(doc.title) || holds(doc.body); }));
}

QueryWords ChooseQueryWords(const Corpus& corpus) {
  const std::size_t documents = corpus.documents().size();
  std::vector<std::uint32_t> by_frequency(corpus.words().size());
  std::iota(by_frequency.begin(), by_frequency.end(), 0);
  std::stable_sort(by_frequency.begin(), by_frequency.end(), [&](std::uint32_t a, std::uint32_t b) {
    return corpus.DocumentFrequency(a) > corpus.DocumentFrequency(b);
  });
  by_frequency.resize(std::min(by_frequency.size(), kQueriesPerClass));
  std::unordered_set<std::uint32_t> taken(by_frequency.begin(), by_frequency.end());

  const std::size_t mid_target = std::max<std::size_t>(1, documents / 100);
  const std::vector<std::uint32_t> mid =
      NearestFrequency(corpus, mid_target, 1, kQueriesPerClass, taken);
  taken.insert(mid.begin(), mid.end());
  const std::size_t rare_target = std::max<std::size_t>(3, documents / 10'000);
  const std::vector<std::uint32_t> rare =
      NearestFrequency(corpus, rare_target, 1, kQueriesPerClass, taken);

  QueryWords chosen;
  chosen.common = {"common word", "the most frequent words", OneWordEach(by_frequency)};
  chosen.mid = {
      "mid word",
      "the words held by nearest " + std::to_string(mid_target) + " documents (1% of them)",
      OneWordEach(mid)};
  chosen.rare = {"rare word",
                 "the words held by nearest " + std::to_string(rare_target) +
                     " documents (0.01% of them, at least 3)",
                 OneWordEach(rare)};
  chosen.pairs = {"two mid words OR'd", "each mid word with the next", {}};
  for (std::size_t word_idx = 0; word_idx < mid.size() && mid.size() > 1; ++word_idx) {
    chosen.pairs.queries.push_back({mid[word_idx], mid[(word_idx + 1) % mid.size()]});
  }
  return chosen;
}

std::string JoinWords(const Corpus& corpus, const std::vector<std::uint32_t>& words,
                      const std::string& separator) {
  std::string text;
  for (std::uint32_t word : words) {
    if (!text.empty()) text += separator;
    text += corpus.words()[word];
  }
  return text;
}

}  // namespace quarry::bench
