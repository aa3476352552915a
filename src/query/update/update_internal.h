// The parsed form of a modifier update: a tree of path components (as mongod's UpdateNode
// tree), with one operator at each leaf. Private to update_*.cc.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "bson/value.h"
#include "query/match/matcher.h"
#include "query/pipeline/pipeline.h"
#include "query/sort/sort.h"
#include "query/update/mutable_value.h"
#include "query/update/update.h"
#include "query/value/value.h"

namespace quarry::query::update_internal {

enum class OpKind {
  kSet,
  kUnset,
  kInc,
  kMul,
  kMin,
  kMax,
  kCurrentDate,
  kSetOnInsert,
  kPush,
  kAddToSet,
  kPop,
  kPull,
  kPullAll,
  kRename,
  kRenameSource,
};

// One operator applied at one path.
struct LeafOp {
  OpKind kind = OpKind::kSet;
  std::string op_name;  // "$inc", for messages
  std::string path;     // the dotted path as written
  Value arg;            // the operand (owned)

  // $push / $addToSet: the values to add ($each or the single value).
  std::vector<Value> each;
  std::optional<std::int64_t> slice;
  std::optional<std::int64_t> position;
  bool has_sort = false;
  int sort_whole_direction = 0;  // 1 / -1 when sorting whole elements
  SortSpec sort_spec;            // when sorting by fields

  // $pull: a condition on each element.
  enum class PullMode { kEquality, kValueCondition, kDocumentFilter };
  PullMode pull_mode = PullMode::kEquality;
  std::optional<Matcher> pull_matcher;

  // The statement's collation; the ModifierUpdate holding this op keeps it alive.
  std::shared_ptr<const bson::StringComparator> collator;

  bool timestamp = false;   // $currentDate {$type: "timestamp"}
  std::string rename_from;  // kRename: the source path
};

bool ComponentLess(std::string_view a, std::string_view b);
struct ComponentCompare {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const { return ComponentLess(a, b); }
};

struct UpdateNode {
  std::unique_ptr<LeafOp> leaf;  // set for leaves only
  // Named children ("a", "0") or, for an array node, "$[]" / "$[id]" children; never both.
  std::map<std::string, std::unique_ptr<UpdateNode>, ComponentCompare> children;
  std::unique_ptr<UpdateNode> positional;  // "$"
  bool array_children = false;             // children are $[...] forms
};

// An arrayFilters entry: its identifier and matcher (tests {<id>: element}).
struct ArrayFilter {
  std::string id;
  Matcher matcher;
};

struct ModifierUpdate {
  UpdateNode root;
  std::map<std::string, ArrayFilter, std::less<>> array_filters;
  std::vector<const LeafOp*> renames;  // in parse order
};

// Parses the argument of op->kind for op->path (update_parse_args.cc).
Status ParseArg(LeafOp* op, bson::ValueView value);

// Parses a modifier document ({$set: ..., $inc: ...}).
StatusWith<std::shared_ptr<ModifierUpdate>> ParseModifiers(bson::DocumentView update,
                                                           const UpdateOptions& options);

struct ApplyState {
  MutableValue* root = nullptr;
  const ModifierUpdate* update = nullptr;
  const MatchDetails* details = nullptr;
  bool is_insert = false;
  bson::DocumentView original;
  std::int64_t now_millis = 0;
  std::uint64_t now_timestamp = 0;
  std::vector<std::string> moved_sources;  // $rename sources to remove after the tree
};

// A modifier update that only sets ($set), removes ($unset) or does arithmetic on ($inc,
// $mul) top-level fields other than _id, without arrayFilters: its ops, in the tree's order.
// They point into the ModifierUpdate, which must outlive the plan.
struct TopLevelUpdate {
  std::vector<const LeafOp*> ops;
  // Whether some op sets a document or an array: only then can the update nest deeper than the
  // document already does.
  bool sets_nested = false;
};

// The plan for `update`, or nullopt when it needs the tree.
std::optional<TopLevelUpdate> PlanTopLevelUpdate(const ModifierUpdate& update);

// `doc` with the plan applied, as ApplyModifiers would build it; nullopt when only the general
// path can decide (an $inc or $mul of a non-number, an int64 overflow), which then also gives
// the error.
std::optional<bson::Document> ApplyTopLevelUpdate(const TopLevelUpdate& plan,
                                                  bson::DocumentView doc);

// Applies the tree to `doc` (the root document).
Status ApplyModifiers(const ModifierUpdate& update, MutableValue* doc, ApplyState& state);

// Where a leaf applies: the existing value (`target`), or what must be created when absent.
// Resolve() fills it from `components` (the full path from the root, with positional elements
// already replaced by indexes).
struct Location {
  std::vector<std::string> components;
  MutableValue* parent = nullptr;    // nearest existing value above the target
  std::string parent_path;           // dotted path of `parent` ("" for the root)
  std::vector<std::string> missing;  // components from `parent` down to the target
  MutableValue* target = nullptr;    // the value, when it exists
  std::string path;                  // dotted path of the target
};

void Resolve(MutableValue* root, Location* loc);

// Leaf operators (update_operators.cc, update_array_operators.cc).
Status ApplyLeaf(const LeafOp& op, Location& loc, ApplyState& state);
Status ApplyArrayLeaf(const LeafOp& op, Location& loc, ApplyState& state);

// Creates the target of `loc` (and the documents on the way) holding `value`. Fails with
// PathNotViable (28) inside scalars and with a non-numeric component inside an array.
Status CreateAt(Location& loc, MutableValue value, ApplyState& state);

// "{_id: 1}" for messages about a document.
std::string IdDescription(const ApplyState& state);

}  // namespace quarry::query::update_internal
