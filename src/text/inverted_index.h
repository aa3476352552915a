// The terms of a search index's strings, by document label: for each path and term, the labels
// holding it and the positions it has there; for each path, each label's term count; and each
// label's values held whole (numbers, dates, tokens...); and the sub-documents of embeddedDocuments
// paths, in indexes of their own. Text and phrase score by Lucene's BM25; equals, range, in and
// exists read the values.
#pragma once

#include <boost/container/small_vector.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "bson/value.h"
#include "text/full_text_mapping.h"
#include "text/posting_list.h"

namespace quarry::text {

class InvertedIndex {
 public:
  using Positions = text::Positions;
  using Postings = PostingList;

  struct Field {
    std::map<std::string, Postings, std::less<>> terms;
    // By label: the terms it holds (0: none). Labels are dense, so a vector is both smaller and
    // faster to read per posting than a map.
    std::vector<std::uint32_t> lengths;
    std::size_t documents = 0;  // labels holding at least one term
    std::uint64_t total_length = 0;

    std::uint32_t LengthOf(std::uint32_t label) const {
      return label < lengths.size() ? lengths[label] : 0;
    }

    // Lucene's BM25 (k1 1.2, b 0.75) of `frequency` occurrences in `label`'s value, for a term
    // (or phrase) whose inverse document frequency is `idf`.
    double Score(std::uint32_t label, double frequency, double idf) const;
    // ln(1 + (N - n + 0.5) / (n + 0.5)), N the labels holding this path.
    double Idf(std::size_t labels_with_term) const;
  };

  // Replaces what the index holds of `label` with the strings `mapping` maps in `document`.
  void Set(std::uint32_t label, const FullTextMapping& mapping, bson::DocumentView document);
  void Remove(std::uint32_t label);
  // Every label Set has been given is below this (removed ones too).
  std::uint32_t LabelBound() const { return static_cast<std::uint32_t>(held_.size()); }
  // Gives back the room the posting lists grew into: once a build has set every document.
  void ShrinkToFit();

  // label -> the values it holds whole, each under its dotted path (a path repeats for an
  // array's values); a label holding none is absent.
  const std::unordered_map<std::uint32_t, bson::Document>& values() const { return values_; }
  // The first number `label` holds at `path` that no array holds (Lucene keeps a field's value
  // for scoring only when it is single), or none.
  std::optional<double> SingleNumberAt(std::uint32_t label, std::string_view path) const;

  // The labels holding a string or a whole value (a null too) at `path` or below it, or a key
  // the mapping maps there whatever its value: those `exists` finds.
  std::vector<std::uint32_t> LabelsHolding(std::string_view path) const;

  // The field of `path`, or null when no document has held a string there.
  const Field* FieldAt(std::string_view path) const;
  // The grams of `path`'s autocomplete mapping (terms: grams; positions: their words'; length:
  // words), or null when no document has held one there.
  const Field* AutocompleteFieldAt(std::string_view path) const;

  // Every path some document held a string at.
  std::vector<std::string_view> Paths() const;

  // The sub-documents at an embeddedDocuments path, each held under a label of its own in an
  // index of their own.
  struct Embedded;
  // Those at `path`, or null when no document has held one there.
  const Embedded* EmbeddedAt(std::string_view path) const;

 private:
  std::map<std::string, Field, std::less<>> fields_;
  std::map<std::string, Field, std::less<>> autocomplete_fields_;
  std::unordered_map<std::uint32_t, bson::Document> values_;
  // label -> whether an array holds each of its values_ (in their order); only labels with one.
  std::unordered_map<std::uint32_t, std::vector<bool>> values_in_arrays_;
  // label -> the mapped keys it has that hold no term or value; only labels with one.
  std::unordered_map<std::uint32_t, std::vector<std::string>> keys_alone_;
  // By label (dense, so a vector): the terms it holds, so that Remove finds them. A run of
  // entries is a field's address with its low bit set, then the addresses of the keys of that
  // field's terms: a key stays in its field's map while any label holds it, and both are at
  // least 2-aligned. Eight bytes a posting, where a (field, term) pair was sixteen.
  std::vector<std::vector<std::uintptr_t>> held_;
  std::map<std::string, std::unique_ptr<Embedded>, std::less<>> embedded_;
};

struct InvertedIndex::Embedded {
  InvertedIndex index;
  std::vector<std::uint32_t> parent;  // by sub-document label: its document's label
  // By document label: its sub-documents' labels.
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> children;
  std::vector<std::uint32_t> free_labels;  // of removed sub-documents, to use again
};

}  // namespace quarry::text
