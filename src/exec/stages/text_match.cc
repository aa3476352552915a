#include "exec/stages/text_match.h"

#include "bson/builder.h"
#include "exec/text_keys.h"

namespace quarry::exec {
namespace {

// Entries between interrupt checks.
constexpr std::int64_t kEntriesPerInterruptCheck = 256;

void AppendStrings(std::string_view name, const auto& strings, bson::DocumentBuilder* b) {
  b->OpenArray(name);
  int i = 0;
  for (const std::string& s : strings) b->AppendString(std::to_string(i++), s);
  b->Close();
}

}  // namespace

TextMatch::TextMatch(const storage::IndexStore* indexes, const storage::RecordStore* records,
                     std::shared_ptr<const Interrupt> interrupt, Options options)
    : indexes_(indexes),
      records_(records),
      interrupt_(std::move(interrupt)),
      options_(std::move(options)),
      terms_(options_.search.index_terms.begin(), options_.search.index_terms.end()) {}

void TextMatch::Save() {
  if (cursor_ == nullptr) return;
  if (cursor_->Valid()) {
    resume_after_ = std::string(cursor_->entry_key());
  } else if (cursor_->status().ok()) {
    ++term_;  // this term is read to its end
  }
  cursor_.reset();
}

Status TextMatch::Restore() { return Status::OK(); }  // the scan reopens where it stopped

Status TextMatch::ScanOne() {
  if (cursor_ == nullptr) {
    const std::string prefix = TextTermPrefix(terms_[term_]);
    storage::KeyRange range{prefix, true, prefix, true};
    cursor_ =
        indexes_->Scan(options_.index, range, storage::ScanDirection::kForward, resume_after_);
    resume_after_.clear();
  }
  if (!cursor_->Valid()) {
    QUARRY_RETURN_IF_ERROR(cursor_->status());
    cursor_.reset();
    ++term_;
    return Status::OK();
  }
  StageStats& stats = mutable_stats();
  if (++stats.keys_examined % kEntriesPerInterruptCheck == 0 && interrupt_ != nullptr) {
    QUARRY_RETURN_IF_ERROR(interrupt_->Check());
  }
  scores_[std::string(cursor_->id_key())] += ScoreOfTextKey(cursor_->key());
  cursor_->Next();
  return Status::OK();
}

StatusWith<WorkState> TextMatch::DoWork(PlanResult* out) {
  if (term_ < terms_.size()) {
    QUARRY_RETURN_IF_ERROR(ScanOne());
    return WorkState::kNeedTime;
  }
  if (!fetching_) {
    fetching_ = true;
    next_ = scores_.begin();
  }
  if (next_ == scores_.end()) return WorkState::kEof;
  const auto& [id_key, score] = *next_++;
  QUARRY_ASSIGN_OR_RETURN(std::optional<bson::Document> doc,
                          records_->FindByIdKey(options_.collection, id_key));
  if (!doc.has_value()) return WorkState::kNeedTime;  // deleted since its entries were read
  ++mutable_stats().docs_examined;
  if (options_.rest.has_value()) {
    QUARRY_ASSIGN_OR_RETURN(bool matched, options_.rest->Evaluate(*doc));
    if (!matched) return WorkState::kNeedTime;
  }
  QUARRY_ASSIGN_OR_RETURN(
      bool passes,
      text::MatchesDocument(options_.search, *options_.parsed->descriptor.text(), *doc));
  if (!passes) return WorkState::kNeedTime;
  out->details = query::MatchDetails();
  out->id_key = {};
  out->index_key = {};
  out->Own(std::move(*doc));
  out->text_score = score;
  return WorkState::kAdvanced;
}

void TextMatch::ExplainDetails(bson::DocumentBuilder* b) const {
  b->AppendDocument("indexPrefix", bson::Document());
  b->AppendString("indexName", options_.parsed->descriptor.name());
  b->OpenDocument("parsedTextQuery");
  AppendStrings("terms", options_.search.positive_terms, b);
  AppendStrings("negatedTerms", options_.search.negated_terms, b);
  AppendStrings("phrases", options_.search.positive_phrases, b);
  AppendStrings("negatedPhrases", options_.search.negated_phrases, b);
  b->Close();
  b->AppendInt32("textIndexVersion", 3);
  if (options_.rest.has_value()) b->AppendDocument("filter", options_.rest->filter());
}

}  // namespace quarry::exec
