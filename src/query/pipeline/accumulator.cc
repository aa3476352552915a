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

class SumAccumulator final : public Accumulator {
 public:
  Status Process(const Value& v) override {
    if (v.IsNumber()) total_ = Arithmetic(ArithmeticOp::kAdd, total_.view(), v.view());
    return Status::OK();
  }
  Value Finish() const override { return total_; }

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

 private:
  bool sample_;
  std::int64_t count_ = 0;
  double mean_ = 0;
  double m2_ = 0;
};

}  // namespace

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
