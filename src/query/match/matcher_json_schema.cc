// $jsonSchema in filters (and so in collection validators). Unlike other filter operators,
// schemas see values as they are: arrays are not traversed implicitly.
#include <memory>

#include "query/match/matcher_internal.h"
#include "query/match/matcher_json_schema_internal.h"

namespace quarry::query {
namespace {

using json_schema::Schema;

class JsonSchemaNode final : public MatchNode {
 public:
  explicit JsonSchemaNode(std::unique_ptr<Schema> schema) : schema_(std::move(schema)) {}
  bool Matches(bson::ValueView root, MatchDetails*) const override {
    return root.type() == bson::Type::kDocument && schema_->Validate(root);
  }
  bool MatchesSingle(bson::ValueView value, MatchDetails*) const override {
    return schema_->Validate(value);
  }

 private:
  std::unique_ptr<Schema> schema_;
};

}  // namespace

StatusWith<MatchNodePtr> ParseJsonSchemaNode(bson::ValueView schema) {
  if (schema.type() != bson::Type::kDocument) {
    return Status(ErrorCode::kTypeMismatch, "$jsonSchema must be an object");
  }
  QUARRY_ASSIGN_OR_RETURN(std::unique_ptr<Schema> parsed, Schema::Parse(schema.Document(), 0));
  return MatchNodePtr(std::make_unique<JsonSchemaNode>(std::move(parsed)));
}

}  // namespace quarry::query
