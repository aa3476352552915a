// The aggregation expression language ({$add: ["$a", 1]}, "$field.path", "$$ROOT", {$cond: ...}):
// parsed once into a tree, then evaluated against one document at a time.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "bson/string_comparator.h"
#include "bson/value.h"
#include "query/value/value.h"

namespace quarry::query {

// A slot for a variable bound at run time ($let, $map's `as`, $lookup's `let`...).
using VariableId = int;

// What the parser knows: which variables are in scope. Command-level `let` variables are
// constants known before parsing; variables that $let/$map/$filter/$reduce/$lookup bind are
// slots an EvalContext fills at run time. One ParseContext may serve a whole pipeline,
// including $lookup sub-pipelines, so slot numbers are unique within it.
class ParseContext {
 public:
  ParseContext() = default;

  // Binds `name` to a constant for everything parsed afterwards (a command's `let`). Fails as
  // mongod does for names that user code may not define (16867, 16868), and for the reserved
  // names (ROOT, NOW, ...).
  Status DefineConstant(std::string_view name, Value value);
  // Binds $$SEARCH_META, the results' metadata of the $search the pipeline starts with (a
  // reserved name, which DefineConstant refuses).
  void DefineSearchMeta(Value value);
  // Binds $$SEARCH_META to a new run-time slot in the innermost scope: a sub-pipeline's own
  // $search fills it as the sub-pipeline runs.
  VariableId DefineSearchMetaSlot();
  // Binds `name` to a new run-time slot in the innermost scope. Same name rules.
  StatusWith<VariableId> DefineVariable(std::string_view name);
  // Scopes of $let/$map/$filter/$reduce: names defined after PushScope vanish at PopScope.
  void PushScope();
  void PopScope();

  // What `$$name` refers to: a constant, a slot, or nothing (then parsing fails with 17276
  // "Use of undefined variable: name"). Inner scopes shadow outer ones.
  struct Binding {
    bool found = false;
    bool is_constant = false;
    Value constant;
    VariableId slot = -1;
  };
  Binding Lookup(std::string_view name) const;

  // The collation that comparisons parsed from here use ($eq, $cmp, $in, set operators,
  // $min/$max, $addToSet); null for the simple collation. Parsed expressions share it.
  const bson::StringComparator* collator() const { return collator_.get(); }
  const std::shared_ptr<const bson::StringComparator>& shared_collator() const { return collator_; }
  void set_collator(std::shared_ptr<const bson::StringComparator> collator) {
    collator_ = std::move(collator);
  }

 private:
  std::shared_ptr<const bson::StringComparator> collator_;
  struct Scope {
    std::map<std::string, Binding, std::less<>> names;
  };
  std::vector<Scope> scopes_ = std::vector<Scope>(1);
  VariableId next_slot_ = 0;
};

// Per-document values that are not fields ({$meta: "vectorSearchScore"}): stages such as
// $vectorSearch attach them, $meta reads them, and they never appear in the document itself.
struct DocumentMetadata {
  std::map<std::string, Value, std::less<>> values;  // "vectorSearchScore" -> 0.93, ...
  bool empty() const { return values.empty(); }
};

// The run-time environment of one evaluation: $$ROOT, $$CURRENT, $$NOW and variable slots.
// Not thread-safe; make one per thread of execution.
class EvalContext {
 public:
  EvalContext();  // $$NOW is the time of construction; $$ROOT is missing
  explicit EvalContext(Value root);

  // Sets $$ROOT and $$CURRENT.
  void SetRoot(Value root);
  void SetRoot(bson::DocumentView doc_kept_alive_by_caller);
  const Value& root() const { return root_; }
  const Value& current() const { return current_; }
  void set_current(Value current) { current_ = std::move(current); }

  std::int64_t now_millis() const { return now_millis_; }
  void set_now_millis(std::int64_t millis) { now_millis_ = millis; }

  const Value& GetVariable(VariableId id) const;
  void SetVariable(VariableId id, Value value);

  // The metadata of the current document, or null. Not owned; valid during one evaluation.
  const DocumentMetadata* metadata() const { return metadata_; }
  void set_metadata(const DocumentMetadata* metadata) { metadata_ = metadata; }

 private:
  const DocumentMetadata* metadata_ = nullptr;
  Value root_;
  Value current_;
  std::int64_t now_millis_;
  std::vector<Value> slots_;
};

class Expression;
using ExpressionPtr = std::shared_ptr<const Expression>;

class Expression {
 public:
  virtual ~Expression() = default;

  // Parses an expression: "$path", "$$var.path", a literal, an array of expressions, an object
  // of expressions ({a: "$x"}), or an operator ({$add: [...]}). Unknown operators fail with
  // InvalidPipelineOperator (168) "Unrecognized expression '$foo'"; other errors use mongod's
  // codes and texts.
  static StatusWith<ExpressionPtr> Parse(bson::ValueView spec, ParseContext& ctx);
  // Parses a document's fields as an object expression (what `{a: ...}` in Parse gives), so
  // callers that already hold a document need not wrap it.
  static StatusWith<ExpressionPtr> ParseObject(bson::DocumentView spec, ParseContext& ctx);
  static ExpressionPtr Constant(Value value);

  // The value of this expression for the document and variables in `ctx`. A missing result
  // (a missing field, $$REMOVE) is Value(). Fails with mongod's runtime errors, e.g. 16608
  // "can't $divide by zero".
  virtual StatusWith<Value> Evaluate(EvalContext& ctx) const = 0;

  // True when the value does not depend on the document or on variables.
  virtual bool IsConstant() const { return false; }
};

// Evaluates `expr` with `doc` as $$ROOT: a convenience for callers with one document.
StatusWith<Value> EvaluateOn(const Expression& expr, bson::DocumentView doc, EvalContext& ctx);

// Parses a command's `let` document ({x: "foo", y: {$literal: "$bar"}}) and binds each name
// as a constant in `ctx`. Values are expressions evaluated once, against an empty document (so
// a field path in them is missing).
Status DefineLetConstants(bson::DocumentView let, ParseContext* ctx);

}  // namespace quarry::query
