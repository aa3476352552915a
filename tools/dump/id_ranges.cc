#include "tools/dump/id_ranges.h"

#include <utility>

namespace quarry::tools::dumping {
namespace {

// MongoDB's sort order puts each of these groups of BSON types together.
int TypeBracket(bson_type_t type) {
  switch (type) {
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
    case BSON_TYPE_DOUBLE:
    case BSON_TYPE_DECIMAL128:
      return 1;
    case BSON_TYPE_UTF8:
    case BSON_TYPE_SYMBOL:
      return 2;
    default:
      return 100 + static_cast<int>(type);
  }
}

// The document at `skip` in _id order (ascending, or descending from the end), as {_id: ...};
// a null one past the end.
StatusWith<client::BsonPtr> IdAt(mongoc_collection_t* collection, std::int64_t skip,
                                 int direction) {
  bson_t filter = BSON_INITIALIZER;
  bson_t* opts = BCON_NEW("sort", "{", "_id", BCON_INT32(direction), "}", "projection", "{", "_id",
                          BCON_INT32(1), "}", "skip", BCON_INT64(skip), "limit", BCON_INT64(1));
  client::CursorPtr cursor(mongoc_collection_find_with_opts(collection, &filter, opts, nullptr));
  bson_destroy(opts);
  const bson_t* found = nullptr;
  client::BsonPtr id(mongoc_cursor_next(cursor.get(), &found) ? bson_copy(found) : nullptr);
  bson_error_t error;
  if (mongoc_cursor_error(cursor.get(), &error)) return client::DriverError(error, "finding _ids");
  return id;
}

bson_iter_t IdOf(const client::BsonPtr& doc) {
  bson_iter_t it;
  bson_iter_init_find(&it, doc.get(), "_id");
  return it;
}

// {_id: {$gte: lower, $lt: upper}}, either bound left out when null.
client::BsonPtr RangeFilter(const client::BsonPtr* lower, const client::BsonPtr* upper) {
  bson_t* filter = bson_new();
  bson_t bounds;
  bson_append_document_begin(filter, "_id", -1, &bounds);
  if (lower != nullptr) {
    bson_iter_t it = IdOf(*lower);
    bson_append_value(&bounds, "$gte", -1, bson_iter_value(&it));
  }
  if (upper != nullptr) {
    bson_iter_t it = IdOf(*upper);
    bson_append_value(&bounds, "$lt", -1, bson_iter_value(&it));
  }
  bson_append_document_end(filter, &bounds);
  return client::BsonPtr(filter);
}

}  // namespace

StatusWith<std::vector<client::BsonPtr>> SplitIdRanges(client::MongoClient& source,
                                                       const std::string& db,
                                                       const std::string& collection, int ranges) {
  std::vector<client::BsonPtr> whole;
  whole.emplace_back(bson_new());
  client::CollectionPtr from = source.Collection(db, collection);
  bson_error_t error;
  const std::int64_t count =
      mongoc_collection_estimated_document_count(from.get(), nullptr, nullptr, nullptr, &error);
  if (count < 0) return client::DriverError(error, "counting " + db + "." + collection);
  const std::int64_t parts = std::min<std::int64_t>(ranges, count / kMinDocumentsPerRange);
  if (parts < 2) return whole;
  QUARRY_ASSIGN_OR_RETURN(client::BsonPtr first, IdAt(from.get(), 0, 1));
  QUARRY_ASSIGN_OR_RETURN(client::BsonPtr last, IdAt(from.get(), 0, -1));
  if (first.get() == nullptr || last.get() == nullptr) return whole;
  bson_iter_t low = IdOf(first);
  bson_iter_t high = IdOf(last);
  if (TypeBracket(bson_iter_type(&low)) != TypeBracket(bson_iter_type(&high))) return whole;

  std::vector<client::BsonPtr> splits;
  for (std::int64_t i = 1; i < parts; ++i) {
    QUARRY_ASSIGN_OR_RETURN(client::BsonPtr at, IdAt(from.get(), count * i / parts, 1));
    if (at.get() == nullptr) break;  // the collection shrank since it was counted
    splits.push_back(std::move(at));
  }
  if (splits.empty()) return whole;
  std::vector<client::BsonPtr> filters;
  filters.push_back(RangeFilter(nullptr, &splits.front()));
  for (std::size_t i = 0; i + 1 < splits.size(); ++i) {
    filters.push_back(RangeFilter(&splits[i], &splits[i + 1]));
  }
  filters.push_back(RangeFilter(&splits.back(), nullptr));
  return filters;
}

}  // namespace quarry::tools::dumping
