#include "text/word_delimiter.h"

#include <unicode/uchar.h>

#include <algorithm>
#include <cstdint>
#include <optional>

#include "text/utf16.h"

namespace quarry::text {
namespace {

// A character's kind, as bits: a subword is a run of compatible kinds.
constexpr int kLower = 0x01;
constexpr int kUpper = 0x02;
constexpr int kDigit = 0x04;
constexpr int kDelimiter = 0x08;
constexpr int kAlpha = kLower | kUpper;

bool IsAlpha(int kind) { return (kind & kAlpha) != 0; }
bool IsDigit(int kind) { return (kind & kDigit) != 0; }
bool IsDelimiter(int kind) { return (kind & kDelimiter) != 0; }
bool IsUpper(int kind) { return (kind & kUpper) != 0; }

// Latin-1 by Java's case and digit properties; the rest by general category, a surrogate being
// letter and digit at once so that it never splits.
int KindOf(char16_t unit) {
  const UChar32 c = unit;
  if (c < 256) {
    if (u_isULowercase(c)) return kLower;
    if (u_isUUppercase(c)) return kUpper;
    if (u_charType(c) == U_DECIMAL_DIGIT_NUMBER) return kDigit;
    return kDelimiter;
  }
  switch (u_charType(c)) {
    case U_UPPERCASE_LETTER:
      return kUpper;
    case U_LOWERCASE_LETTER:
      return kLower;
    case U_TITLECASE_LETTER:
    case U_MODIFIER_LETTER:
    case U_OTHER_LETTER:
    case U_NON_SPACING_MARK:
    case U_ENCLOSING_MARK:
    case U_COMBINING_SPACING_MARK:
      return kAlpha;
    case U_DECIMAL_DIGIT_NUMBER:
    case U_LETTER_NUMBER:
    case U_OTHER_NUMBER:
      return kDigit;
    case U_SURROGATE:
      return kAlpha | kDigit;
    default:
      return kDelimiter;
  }
}

constexpr int kDone = -1;

// Walks the subwords of one token, as Lucene's WordDelimiterIterator: [current, end) is the
// subword, end == kDone after the last.
class Subwords {
 public:
  Subwords(const std::u16string& text, const WordDelimiterOptions& options)
      : text_(text), options_(options), length_(static_cast<int>(text.size())) {
    end_bound_ = length_;
    while (start_bound_ < length_ && IsDelimiter(Kind(start_bound_))) ++start_bound_;
    while (end_bound_ > start_bound_ && IsDelimiter(Kind(end_bound_ - 1))) --end_bound_;
    final_possessive_ = EndsWithPossessive(end_bound_);
    current = start_bound_;
  }

  void Next() {
    current = end;
    if (current == kDone) return;
    if (skip_possessive_) {
      current += 2;
      skip_possessive_ = false;
    }
    int last = 0;
    while (current < end_bound_ && IsDelimiter(last = Kind(current))) ++current;
    if (current >= end_bound_) {
      end = kDone;
      return;
    }
    for (end = current + 1; end < end_bound_; ++end) {
      const int kind = Kind(end);
      if (IsBreak(last, kind)) break;
      last = kind;
    }
    if (end < end_bound_ - 1 && EndsWithPossessive(end + 2)) skip_possessive_ = true;
  }

  // The kind of the current subword: its first character's, letters of either case as one.
  int Type() const {
    if (end == kDone) return 0;
    const int kind = Kind(current);
    return kind == kLower || kind == kUpper ? kAlpha : kind;
  }

  bool SingleWord() const {
    return current == start_bound_ && end == (final_possessive_ ? end_bound_ - 2 : end_bound_);
  }

  int current = 0;
  int end = 0;

 private:
  int Kind(int at) const { return KindOf(text_[static_cast<std::size_t>(at)]); }

  bool IsBreak(int last, int kind) const {
    if ((kind & last) != 0) return false;
    if (!options_.split_on_case_change && IsAlpha(last) && IsAlpha(kind)) return false;
    if (IsUpper(last) && IsAlpha(kind)) return false;  // "Power" stays one word
    if (!options_.split_on_numerics &&
        ((IsAlpha(last) && IsDigit(kind)) || (IsDigit(last) && IsAlpha(kind)))) {
      return false;
    }
    return true;
  }

  bool EndsWithPossessive(int at) const {
    return options_.stem_english_possessive && at > 2 &&
           text_[static_cast<std::size_t>(at - 2)] == u'\'' &&
           (text_[static_cast<std::size_t>(at - 1)] == u's' ||
            text_[static_cast<std::size_t>(at - 1)] == u'S') &&
           IsAlpha(Kind(at - 3)) && (at == end_bound_ || IsDelimiter(Kind(at)));
  }

  const std::u16string& text_;
  const WordDelimiterOptions& options_;
  int length_;
  int start_bound_ = 0;
  int end_bound_ = 0;
  bool final_possessive_ = false;
  bool skip_possessive_ = false;
};

// One part of a split token: its text, the positions it spans within the token's, and the
// units of the token it came from.
struct Part {
  std::u16string text;
  int start_position, end_position;
  int start_unit, end_unit;
};

// A run of parts being joined (concatenateWords, concatenateNumbers, concatenateAll).
struct Concatenation {
  std::u16string text;
  int start_unit = 0, end_unit = 0, start_position = 0, type = 0, subwords = 0;

  bool empty() const { return text.empty(); }
  void Clear() { *this = Concatenation(); }
};

class Splitter {
 public:
  // Finds the token's first subword, which decides whether it splits at all.
  Splitter(const std::u16string& text, const WordDelimiterOptions& options)
      : text_(text), options_(options), subwords_(text, options) {
    subwords_.Next();
  }

  // Whether the token is one subword as it stands, or holds none (only delimiters).
  bool Whole() const { return subwords_.current == 0 && subwords_.end == Length(); }
  bool OnlyDelimiters() const { return subwords_.end == kDone; }

  // The token's parts in the order Lucene emits them: the original first (preserveOriginal),
  // then by where they start, the longer first.
  std::vector<Part> Split() {
    if (options_.preserve_original) Add(std::u16string(text_), 0, 1, 0, Length());
    if (subwords_.SingleWord()) {
      AddSlice(position_, position_ + 1, subwords_.current, subwords_.end);
      ++position_;
      subwords_.Next();
    } else {
      while (subwords_.end != kDone) {
        const int type = subwords_.Type();
        if (!words_.empty() && (words_.type & type) == 0) Flush(&words_);
        if (ShouldConcatenate(type)) Concatenate(&words_);
        if (options_.concatenate_all) Concatenate(&all_);
        if (ShouldGenerate(type)) {
          AddSlice(position_, position_ + 1, subwords_.current, subwords_.end);
          ++position_;
        }
        subwords_.Next();
      }
      if (!words_.empty()) Flush(&words_);
      if (!all_.empty()) {
        // Unless the same run was written already (PowerShot with concatenateWords).
        if (all_.subwords > last_concatenated_) {
          if (position_ == all_.start_position) ++position_;
          Write(all_);
        }
        all_.Clear();
      }
    }
    if (options_.preserve_original) {
      if (position_ == 0) ++position_;
      parts_.front().end_position = position_;
    }
    std::stable_sort(parts_.begin() + (options_.preserve_original ? 1 : 0), parts_.end(),
                     [](const Part& a, const Part& b) {
                       if (a.start_unit != b.start_unit) return a.start_unit < b.start_unit;
                       return a.end_unit > b.end_unit;
                     });
    return std::move(parts_);
  }

 private:
  int Length() const { return static_cast<int>(text_.size()); }

  bool ShouldConcatenate(int type) const {
    return (options_.concatenate_words && IsAlpha(type)) ||
           (options_.concatenate_numbers && IsDigit(type));
  }
  bool ShouldGenerate(int type) const {
    return (options_.generate_word_parts && IsAlpha(type)) ||
           (options_.generate_number_parts && IsDigit(type));
  }

  void Add(std::u16string text, int start_position, int end_position, int start_unit,
           int end_unit) {
    parts_.push_back({std::move(text), start_position, end_position, start_unit, end_unit});
  }
  void AddSlice(int start_position, int end_position, int start_unit, int end_unit) {
    Add(text_.substr(static_cast<std::size_t>(start_unit),
                     static_cast<std::size_t>(end_unit - start_unit)),
        start_position, end_position, start_unit, end_unit);
  }

  void Concatenate(Concatenation* run) {
    if (run->empty()) {
      run->type = subwords_.Type();
      run->start_unit = subwords_.current;
      run->start_position = position_;
    }
    run->text.append(text_, static_cast<std::size_t>(subwords_.current),
                     static_cast<std::size_t>(subwords_.end - subwords_.current));
    ++run->subwords;
    run->end_unit = subwords_.end;
  }

  void Write(const Concatenation& run) {
    Add(run.text, run.start_position, position_, run.start_unit, run.end_unit);
  }

  void Flush(Concatenation* run) {
    if (position_ == run->start_position) ++position_;  // no part moved it on
    last_concatenated_ = run->subwords;
    if (run->subwords != 1 || !ShouldGenerate(run->type)) Write(*run);
    run->Clear();
  }

  const std::u16string& text_;
  const WordDelimiterOptions& options_;
  Subwords subwords_;
  std::vector<Part> parts_;
  Concatenation words_, all_;
  int position_ = 0;
  int last_concatenated_ = 0;
};

bool IsProtected(const std::u16string& term, const WordDelimiterOptions& options) {
  if (options.protected_words.empty()) return false;
  std::u16string key = term;
  if (options.protected_ignore_case) {
    for (char16_t& c : key) c = static_cast<char16_t>(u_tolower(c));
  }
  return std::find(options.protected_words.begin(), options.protected_words.end(), key) !=
         options.protected_words.end();
}

}  // namespace

std::vector<AnalysisToken> DelimitWords(const std::vector<AnalysisToken>& tokens,
                                        const WordDelimiterOptions& options) {
  std::vector<AnalysisToken> out;
  // Lucene places each token by its increment over the last token emitted; a token of only
  // delimiters that is dropped leaves its increment to the next (a hole).
  std::int64_t last_out = -1, previous_in = -1;
  std::int64_t pending = 0;
  auto emit = [&](AnalysisToken token, std::int64_t increment) {
    last_out += increment;
    token.position = static_cast<std::uint32_t>(std::max<std::int64_t>(last_out, 0));
    out.push_back(std::move(token));
  };
  for (const AnalysisToken& token : tokens) {
    const std::int64_t increment =
        std::max<std::int64_t>(static_cast<std::int64_t>(token.position) - previous_in, 0);
    previous_in = token.position;
    if (options.ignore_keywords && token.keyword) {
      emit(token, increment);
      continue;
    }
    pending += increment;
    const std::u16string text = ToUtf16(token.term);
    Splitter splitter(text, options);
    if (splitter.Whole() || IsProtected(text, options)) {
      emit(token, pending);
      pending = 0;
      continue;
    }
    if (splitter.OnlyDelimiters()) {
      if (options.preserve_original) {
        pending = 0;
        emit(token, increment);
      }
      continue;
    }
    int at = 0;  // the position within the token of the part emitted last
    for (Part& part : splitter.Split()) {
      AnalysisToken piece = token;
      piece.term = FromUtf16(part.text);
      piece.length = static_cast<std::uint32_t>(part.end_position - part.start_position);
      emit(std::move(piece), pending + part.start_position - at);
      pending = 0;
      at = part.start_position;
    }
  }
  return out;
}

}  // namespace quarry::text
