// $limit, $skip and $count.
#include "query/pipeline/stages/stage_internal.h"
#include "query/value/location_error.h"
#include "query/value/value_arithmetic.h"

namespace quarry::query::stages {
namespace {

class LimitStage final : public Stage {
 public:
  LimitStage(bson::ValueView spec, std::int64_t limit) : Stage(spec), limit_(limit) {}
  std::string_view name() const override { return "$limit"; }
  std::int64_t limit() const { return limit_; }

  StatusWith<std::unique_ptr<DocumentStream>> Open(std::unique_ptr<DocumentStream> input,
                                                   const RunContext&) const override {
    class Stream final : public DocumentStream {
     public:
      Stream(std::unique_ptr<DocumentStream> input, std::int64_t limit)
          : input_(std::move(input)), remaining_(limit) {}
      StatusWith<bool> Next(bson::Document* out) override {
        if (remaining_ <= 0) return false;
        QUARRY_ASSIGN_OR_RETURN(bool more, input_->Next(out));
        if (!more) {
          remaining_ = 0;
          return false;
        }
        --remaining_;
        return true;
      }
      const DocumentMetadata& metadata() const override { return input_->metadata(); }

     private:
      std::unique_ptr<DocumentStream> input_;
      std::int64_t remaining_;
    };
    return std::unique_ptr<DocumentStream>(std::make_unique<Stream>(std::move(input), limit_));
  }

 private:
  std::int64_t limit_;
};

class SkipStage final : public Stage {
 public:
  SkipStage(bson::ValueView spec, std::int64_t skip) : Stage(spec), skip_(skip) {}
  std::string_view name() const override { return "$skip"; }

  StatusWith<std::unique_ptr<DocumentStream>> Open(std::unique_ptr<DocumentStream> input,
                                                   const RunContext&) const override {
    class Stream final : public DocumentStream {
     public:
      Stream(std::unique_ptr<DocumentStream> input, std::int64_t skip)
          : input_(std::move(input)), to_skip_(skip) {}
      StatusWith<bool> Next(bson::Document* out) override {
        while (to_skip_ > 0) {
          QUARRY_ASSIGN_OR_RETURN(bool more, input_->Next(out));
          if (!more) return false;
          --to_skip_;
        }
        return input_->Next(out);
      }
      const DocumentMetadata& metadata() const override { return input_->metadata(); }

     private:
      std::unique_ptr<DocumentStream> input_;
      std::int64_t to_skip_;
    };
    return std::unique_ptr<DocumentStream>(std::make_unique<Stream>(std::move(input), skip_));
  }

 private:
  std::int64_t skip_;
};

class CountStage final : public Stage {
 public:
  CountStage(bson::ValueView spec, std::string field) : Stage(spec), field_(std::move(field)) {}
  std::string_view name() const override { return "$count"; }

  StatusWith<std::unique_ptr<DocumentStream>> Open(std::unique_ptr<DocumentStream> input,
                                                   const RunContext&) const override {
    class Stream final : public DocumentStream {
     public:
      Stream(std::unique_ptr<DocumentStream> input, std::string field)
          : input_(std::move(input)), field_(std::move(field)) {}
      StatusWith<bool> Next(bson::Document* out) override {
        if (done_) return false;
        done_ = true;
        std::int64_t n = 0;
        bson::Document doc;
        while (true) {
          QUARRY_ASSIGN_OR_RETURN(bool more, input_->Next(&doc));
          if (!more) break;
          ++n;
        }
        if (n == 0) return false;  // mongod's $count outputs nothing for no input
        bson::DocumentBuilder b;
        Value::Integer(n).AppendTo(field_, &b);
        *out = std::move(b).Finish();
        return true;
      }

     private:
      std::unique_ptr<DocumentStream> input_;
      std::string field_;
      bool done_ = false;
    };
    return std::unique_ptr<DocumentStream>(std::make_unique<Stream>(std::move(input), field_));
  }

 private:
  std::string field_;
};

}  // namespace

std::int64_t LimitOf(const Stage& stage) {
  const auto* limit = dynamic_cast<const LimitStage*>(&stage);
  return limit == nullptr ? -1 : limit->limit();
}

StatusWith<StageList> ParseLimitStage(bson::ValueView spec, StageParseContext&) {
  if (!spec.IsNumber()) return LocationError(15957, "the limit must be specified as a number");
  std::int64_t limit = 0;
  if (!ToInt64Exact(spec, &limit)) {
    return LocationError(15957,
                         "invalid argument to $limit stage: Cannot represent as a 64-bit "
                         "integer: $limit: " +
                             spec.ToJson());
  }
  if (limit <= 0) return LocationError(15958, "the limit must be positive");
  return StageList{std::make_shared<LimitStage>(spec, limit)};
}

StatusWith<StageList> ParseSkipStage(bson::ValueView spec, StageParseContext&) {
  if (!spec.IsNumber()) return LocationError(15972, "Argument to $skip must be a number");
  std::int64_t skip = 0;
  if (!ToInt64Exact(spec, &skip)) {
    return LocationError(15972,
                         "invalid argument to $skip stage: Cannot represent as a 64-bit "
                         "integer: $skip: " +
                             spec.ToJson());
  }
  if (skip < 0) return LocationError(15956, "Argument to $skip cannot be negative");
  return StageList{std::make_shared<SkipStage>(spec, skip)};
}

StatusWith<StageList> ParseCountStage(bson::ValueView spec, StageParseContext&) {
  if (spec.type() != bson::Type::kString) {
    return LocationError(40156, "the count field must be a non-empty string");
  }
  std::string_view field = spec.String();
  if (field.empty()) return LocationError(40157, "the count field must be a non-empty string");
  if (field[0] == '$') return LocationError(40158, "the count field cannot be a $-prefixed path");
  if (field.find('.') != std::string_view::npos) {
    return LocationError(40160, "the count field cannot contain '.'");
  }
  return StageList{std::make_shared<CountStage>(spec, std::string(field))};
}

}  // namespace quarry::query::stages
