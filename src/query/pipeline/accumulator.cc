// Accumulators: $sum $avg $min $max $first $last $push $addToSet $count $mergeObjects
// $stdDevPop $stdDevSamp.
#include "query/pipeline/accumulator.h"

#include <cmath>

#include "bson/compare.h"
#include "query/value/field_list.h"
#include "query/value/location_error.h"
#include "query/value/value_arithmetic.h"
#include "query/value/value_decimal.h"

namespace quarry::query {
namespace {

using bson::Type;

// A field of a partial state document (missing when absent).
Value PartOf(const Value& partial, std::string_view field) {
  if (!partial.IsDocument()) return Value();
  bson::ValueView part = partial.view().Document().Get(field);
  return part.exists() ? partial.Child(part) : Value();
}

class SumAccumulator final : public Accumulator {
 public:
  Status Process(const Value& v) override {
    if (v.IsNumber()) total_ = Arithmetic(ArithmeticOp::kAdd, total_.view(), v.view());
    return Status::OK();
  }
  Value Finish() const override { return total_; }
  bool mergeable() const override { return true; }
  Value PartialState() const override { return total_; }
  Status MergePartialState(const Value& partial) override { return Process(partial); }

 private:
  Value total_ = Value::Int32(0);
};

class AvgAccumulator final : public Accumulator {
 public:
  Status Process(const Value& v) override {
    if (!v.IsNumber()) return Status::OK();
    if (v.type() == Type::kDecimal128) is_decimal_ = true;
    total_ = Arithmetic(ArithmeticOp::kAdd, total_.view(), v.view());
    ++count_;
    return Status::OK();
  }
  Value Finish() const override {
    if (count_ == 0) return Value::Null();
    if (is_decimal_) {
      return Value::Decimal(DecimalArithmetic(DecimalOp::kDivide, DecimalFromNumber(total_.view()),
                                              DecimalFromInt64(count_)));
    }
    return Value::Double(total_.view().AsDouble() / static_cast<double>(count_));
  }
  bool mergeable() const override { return true; }
  Value PartialState() const override {
    bson::DocumentBuilder b;
    total_.AppendTo("total", &b);
    b.AppendInt64("count", count_);
    b.AppendBool("decimal", is_decimal_);
    return Value::FromDocument(std::move(b).Finish());
  }
  Status MergePartialState(const Value& partial) override {
    const Value total = PartOf(partial, "total");
    if (total.IsNumber()) total_ = Arithmetic(ArithmeticOp::kAdd, total_.view(), total.view());
    const Value count = PartOf(partial, "count");
    if (count.IsNumber()) count_ += count.view().AsInt64();
    const Value decimal = PartOf(partial, "decimal");
    if (decimal.type() == Type::kBool && decimal.view().Bool()) is_decimal_ = true;
    return Status::OK();
  }

 private:
  Value total_ = Value::Int32(0);
  std::int64_t count_ = 0;
  bool is_decimal_ = false;
};

class MinMaxAccumulator final : public Accumulator {
 public:
  MinMaxAccumulator(bool is_max, const bson::StringComparator* collator)
      : is_max_(is_max), collator_(collator) {}
  Status Process(const Value& v) override {
    if (v.nullish()) return Status::OK();
    if (best_.missing()) {
      best_ = v.Owned();
      return Status::OK();
    }
    int c = bson::CompareValues(v.view(), best_.view(), collator_);
    if (is_max_ ? c > 0 : c < 0) best_ = v.Owned();
    return Status::OK();
  }
  Value Finish() const override { return best_.missing() ? Value::Null() : best_; }
  std::size_t memory_bytes() const override { return 16 + best_.view().size(); }
  bool mergeable() const override { return true; }
  Value PartialState() const override {
    bson::DocumentBuilder b;
    best_.AppendTo("best", &b);
    return Value::FromDocument(std::move(b).Finish());
  }
  // An equal value seen later never replaces the one kept, so merging in order keeps the
  // same one as a single accumulator would.
  Status MergePartialState(const Value& partial) override {
    return Process(PartOf(partial, "best"));
  }

 private:
  bool is_max_;
  const bson::StringComparator* collator_;
  Value best_;
};

class FirstLastAccumulator final : public Accumulator {
 public:
  explicit FirstLastAccumulator(bool is_last) : is_last_(is_last) {}
  Status Process(const Value& v) override {
    if (is_last_ || !seen_) {
      value_ = v.Owned();
      seen_ = true;
    }
    return Status::OK();
  }
  Value Finish() const override { return value_.missing() ? Value::Null() : value_; }
  std::size_t memory_bytes() const override { return 16 + value_.view().size(); }
  bool mergeable() const override { return true; }
  // Whether a document was seen at all, apart from its value, which may be missing.
  Value PartialState() const override {
    bson::DocumentBuilder b;
    b.AppendBool("seen", seen_);
    value_.AppendTo("value", &b);
    return Value::FromDocument(std::move(b).Finish());
  }
  Status MergePartialState(const Value& partial) override {
    const Value seen = PartOf(partial, "seen");
    if (seen.type() != Type::kBool || !seen.view().Bool()) return Status::OK();
    if (is_last_ || !seen_) {
      value_ = PartOf(partial, "value").Owned();
      seen_ = true;
    }
    return Status::OK();
  }

 private:
  bool is_last_;
  bool seen_ = false;
  Value value_;
};

class PushAccumulator final : public Accumulator {
 public:
  PushAccumulator(bool unique, const bson::StringComparator* collator)
      : unique_(unique), collator_(collator) {}
  Status Process(const Value& v) override {
    if (v.missing()) return Status::OK();
    if (unique_) {
      for (const Value& existing : values_) {
        if (bson::ValuesEqual(existing.view(), v.view(), collator_)) return Status::OK();
      }
    }
    values_.push_back(v.Owned());
    bytes_ += v.view().size() + 16;
    return Status::OK();
  }
  Value Finish() const override { return MakeArray(values_); }
  std::size_t memory_bytes() const override { return 16 + bytes_; }
  bool mergeable() const override { return true; }
  Value PartialState() const override { return Finish(); }
  // The later values after the earlier ones; $addToSet keeps the first of equal values.
  Status MergePartialState(const Value& partial) override {
    if (!partial.IsArray()) return Status::OK();
    for (const bson::Element& e : partial.view().Document()) {
      QUARRY_RETURN_IF_ERROR(Process(partial.Child(e.value)));
    }
    return Status::OK();
  }

 private:
  bool unique_;
  const bson::StringComparator* collator_;
  std::vector<Value> values_;
  std::size_t bytes_ = 0;
};

class MergeObjectsAccumulator final : public Accumulator {
 public:
  Status Process(const Value& v) override {
    if (v.nullish()) return Status::OK();
    if (!v.IsDocument()) {
      return LocationError(40400, "$mergeObjects requires object inputs, but input " + v.ToJson() +
                                      " is of type " + std::string(TypeName(v)));
    }
    Value owned = v.Owned();
    fields_.Merge(owned.view().Document(), owned);
    bytes_ += v.view().size();
    return Status::OK();
  }
  Value Finish() const override { return fields_.ToDocument(); }
  std::size_t memory_bytes() const override { return 16 + bytes_; }
  bool mergeable() const override { return true; }
  // Fields keep the place of their first appearance and take their last value, so merging
  // the earlier documents' result and then the later one's gives the same document.
  Value PartialState() const override { return Finish(); }
  Status MergePartialState(const Value& partial) override { return Process(partial); }

 private:
  FieldList fields_;
  std::size_t bytes_ = 0;
};

// Welford's online variance.
class StdDevAccumulator final : public Accumulator {
 public:
  explicit StdDevAccumulator(bool sample) : sample_(sample) {}
  Status Process(const Value& v) override {
    if (!v.IsNumber()) return Status::OK();
    double x = v.view().AsDouble();
    ++count_;
    double delta = x - mean_;
    mean_ += delta / static_cast<double>(count_);
    m2_ += delta * (x - mean_);
    return Status::OK();
  }
  Value Finish() const override {
    const std::int64_t n = sample_ ? count_ - 1 : count_;
    if (n <= 0) return Value::Null();
    return Value::Double(std::sqrt(m2_ / static_cast<double>(n)));
  }
  bool mergeable() const override { return true; }
  Value PartialState() const override {
    bson::DocumentBuilder b;
    b.AppendInt64("count", count_);
    b.AppendDouble("mean", mean_);
    b.AppendDouble("m2", m2_);
    return Value::FromDocument(std::move(b).Finish());
  }
  // Chan et al.'s combination of two Welford states.
  Status MergePartialState(const Value& partial) override {
    const Value count = PartOf(partial, "count");
    const Value mean = PartOf(partial, "mean");
    const Value m2 = PartOf(partial, "m2");
    if (!count.IsNumber() || !mean.IsNumber() || !m2.IsNumber()) return Status::OK();
    const std::int64_t other_count = count.view().AsInt64();
    if (other_count <= 0) return Status::OK();
    const std::int64_t total = count_ + other_count;
    const double delta = mean.view().AsDouble() - mean_;
    const double weight = static_cast<double>(other_count) / static_cast<double>(total);
    m2_ += m2.view().AsDouble() + delta * delta * static_cast<double>(count_) * weight;
    mean_ += delta * weight;
    count_ = total;
    return Status::OK();
  }

 private:
  bool sample_;
  std::int64_t count_ = 0;
  double mean_ = 0;
  double m2_ = 0;
};

}  // namespace

Status Accumulator::MergePartialState(const Value&) {
  return Status(ErrorCode::kInternalError, "this accumulator has no mergeable state");
}

std::unique_ptr<Accumulator> MakeAccumulator(std::string_view op,
                                             const bson::StringComparator* collator) {
  if (op == "$sum" || op == "$count") return std::make_unique<SumAccumulator>();
  if (op == "$avg") return std::make_unique<AvgAccumulator>();
  if (op == "$min") return std::make_unique<MinMaxAccumulator>(false, collator);
  if (op == "$max") return std::make_unique<MinMaxAccumulator>(true, collator);
  if (op == "$first") return std::make_unique<FirstLastAccumulator>(false);
  if (op == "$last") return std::make_unique<FirstLastAccumulator>(true);
  if (op == "$push") return std::make_unique<PushAccumulator>(false, nullptr);
  if (op == "$addToSet") return std::make_unique<PushAccumulator>(true, collator);
  if (op == "$mergeObjects") return std::make_unique<MergeObjectsAccumulator>();
  if (op == "$stdDevPop") return std::make_unique<StdDevAccumulator>(false);
  if (op == "$stdDevSamp") return std::make_unique<StdDevAccumulator>(true);
  return nullptr;
}

bool IsAccumulatorName(std::string_view op) { return MakeAccumulator(op) != nullptr; }

StatusWith<AccumulationStatement> AccumulationStatement::Parse(std::string_view field,
                                                               bson::ValueView spec,
                                                               ParseContext& ctx) {
  const std::string f(field);
  if (spec.type() != Type::kDocument) {
    return LocationError(40234, "The field '" + f + "' must be an accumulator object");
  }
  bson::DocumentView doc = spec.Document();
  if (doc.CountElements() != 1) {
    return LocationError(40238, "The field '" + f + "' must specify one accumulator");
  }
  const bson::Element op = *doc.begin();
  if (!IsAccumulatorName(op.key)) {
    return LocationError(15952, "unknown group operator '" + std::string(op.key) + "'");
  }
  AccumulationStatement statement;
  statement.field_ = f;
  statement.op_ = std::string(op.key);
  statement.collator_ = ctx.shared_collator();
  if (op.key == "$count") {
    if (op.value.type() != Type::kDocument || !op.value.Document().empty()) {
      return LocationError(40237, "$count takes no arguments, i.e. $count:{}");
    }
    statement.expr_ = Expression::Constant(Value::Int32(1));
    return statement;
  }
  if (op.value.type() == Type::kArray) {
    return LocationError(40237, "The " + std::string(op.key) + " accumulator is a unary operator");
  }
  QUARRY_ASSIGN_OR_RETURN(statement.expr_, Expression::Parse(op.value, ctx));
  return statement;
}

std::unique_ptr<Accumulator> AccumulationStatement::Create() const {
  return MakeAccumulator(op_, collator_.get());
}

}  // namespace quarry::query
