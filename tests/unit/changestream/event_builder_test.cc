// Oplog entry -> change event: field sets and order per operation type, the real update diff,
// pre/post images, the stream's scope, DDL events and invalidation.
#include "changestream/event_builder.h"

#include <gtest/gtest.h>

#include <vector>

#include "changestream_test_util.h"

namespace quarry::changestream {
namespace {

using testing::Json;
using testing::TestUuid;

constexpr storage::Timestamp kTs = storage::MakeTimestamp(1700000000, 3);
constexpr std::int64_t kWall = 1700000000123;

struct EntryOptions {
  std::string o2;
  std::string pre;
  bool replace = false;
  std::optional<bool> images;
  bool with_uuid = true;

  EntryOptions& O2(std::string json) {
    o2 = std::move(json);
    return *this;
  }
  EntryOptions& Pre(std::string json) {
    pre = std::move(json);
    return *this;
  }
  EntryOptions& Replace() {
    replace = true;
    return *this;
  }
  EntryOptions& Images(std::optional<bool> value) {
    images = value;
    return *this;
  }
  EntryOptions& NoUuid() {
    with_uuid = false;
    return *this;
  }
};

EntryOptions Opts() { return EntryOptions(); }

bson::Document MakeEntry(std::string_view op, std::string_view ns, std::string_view o_json,
                         const EntryOptions& options = {}) {
  bson::DocumentBuilder b;
  b.AppendTimestamp("ts", kTs);
  b.AppendString("op", op);
  b.AppendString("ns", ns);
  if (options.with_uuid) b.AppendBinary("ui", 4, TestUuid(1));
  if (!options.o2.empty()) b.AppendDocument("o2", Json(options.o2));
  b.AppendDocument("o", Json(o_json));
  if (!options.pre.empty()) b.AppendDocument("pre", Json(options.pre));
  if (options.replace) b.AppendBool("r", true);
  if (options.images.has_value()) b.AppendBool("images", *options.images);
  b.AppendDate("wall", kWall);
  return std::move(b).Finish();
}

ChangeStreamSpec CollectionSpec(std::string db = "db", std::string coll = "c") {
  ChangeStreamSpec spec;
  spec.scope = StreamScope::kCollection;
  spec.db = std::move(db);
  spec.coll = std::move(coll);
  return spec;
}

ChangeStreamSpec DatabaseSpec(std::string db = "db") {
  ChangeStreamSpec spec;
  spec.scope = StreamScope::kDatabase;
  spec.db = std::move(db);
  return spec;
}

ChangeStreamSpec ClusterSpec() {
  ChangeStreamSpec spec;
  spec.scope = StreamScope::kCluster;
  spec.db = "admin";
  return spec;
}

std::vector<ChangeEvent> Build(const bson::Document& raw, const ChangeStreamSpec& spec,
                               const EventSources& sources = {}) {
  auto entry = storage::ParseOplogEntry(raw);
  EXPECT_TRUE(entry.ok()) << entry.status().ToString();
  auto events = BuildEvents(entry.value(), spec, sources);
  EXPECT_TRUE(events.ok()) << events.status().ToString();
  return events.ok() ? std::move(events).value() : std::vector<ChangeEvent>{};
}

StatusWith<std::vector<ChangeEvent>> TryBuild(const bson::Document& raw,
                                              const ChangeStreamSpec& spec,
                                              const EventSources& sources = {}) {
  auto entry = storage::ParseOplogEntry(raw);
  EXPECT_TRUE(entry.ok());
  return BuildEvents(entry.value(), spec, sources);
}

std::vector<std::string> Keys(bson::DocumentView doc) {
  std::vector<std::string> keys;
  for (const bson::Element& e : doc) keys.emplace_back(e.key);
  return keys;
}

using Keys_t = std::vector<std::string>;

TEST(EventBuilderTest, InsertEventHasMongodFieldsInMongodOrder) {
  auto events = Build(MakeEntry("i", "db.c", R"({"_id": 1, "a": "x"})"), CollectionSpec());
  ASSERT_EQ(events.size(), 1u);
  bson::DocumentView event = events[0].document;
  EXPECT_EQ(Keys(event), (Keys_t{"_id", "operationType", "clusterTime", "wallTime", "fullDocument",
                                 "ns", "documentKey"}));
  EXPECT_EQ(event.Get("operationType").String(), "insert");
  EXPECT_EQ(event.Get("clusterTime").Timestamp(), kTs);
  EXPECT_EQ(event.Get("wallTime").Date(), kWall);
  EXPECT_EQ(event.Get("fullDocument").Document().ToJson(),
            Json(R"({"_id": 1, "a": "x"})").ToJson());
  EXPECT_EQ(event.Get("ns").Document().ToJson(), Json(R"({"db": "db", "coll": "c"})").ToJson());
  EXPECT_EQ(event.Get("documentKey").Document().ToJson(), Json(R"({"_id": 1})").ToJson());
  EXPECT_EQ(event.Get("_id").Document().bytes(), events[0].token.ToDocument().bytes());
  EXPECT_TRUE(events[0].token.is_event());
  EXPECT_EQ(events[0].token.ts, kTs);
  EXPECT_EQ(events[0].token.uuid, TestUuid(1));
}

TEST(EventBuilderTest, UpdateDescriptionIsARealDiffWithTruncatedArrays) {
  // change-streams.json "Test array truncation".
  auto raw = MakeEntry("u", "db.c", R"({"_id": 1, "a": 1, "array": ["foo", {"a": "bar"}]})",
                       Opts()
                           .O2(R"({"_id": 1})")
                           .Pre(R"({"_id": 1, "a": 1, "array": ["foo", {"a": "bar"}, 1, 2, 3]})"));
  auto events = Build(raw, CollectionSpec());
  ASSERT_EQ(events.size(), 1u);
  bson::DocumentView event = events[0].document;
  EXPECT_EQ(Keys(event), (Keys_t{"_id", "operationType", "clusterTime", "wallTime", "ns",
                                 "documentKey", "updateDescription"}));
  EXPECT_EQ(event.Get("operationType").String(), "update");
  EXPECT_EQ(event.Get("updateDescription").Document().ToJson(),
            Json(R"({"updatedFields": {}, "removedFields": [],
                     "truncatedArrays": [{"field": "array", "newSize": 2}]})")
                .ToJson());
  EXPECT_EQ(event.Get("updateDescription")
                .Document()
                .Get("truncatedArrays")
                .Document()
                .Get("0")
                .Document()
                .Get("newSize")
                .type(),
            bson::Type::kInt32);
}

TEST(EventBuilderTest, UpdateReportsSetAndRemovedFields) {
  auto raw =
      MakeEntry("u", "db.c", R"({"_id": 1, "x": 2, "n": {"b": 3}})",
                Opts().O2(R"({"_id": 1})").Pre(R"({"_id": 1, "x": 1, "y": 0, "n": {"b": 1}})"));
  auto events = Build(raw, CollectionSpec());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].document.Get("updateDescription").Document().ToJson(),
            Json(R"({"updatedFields": {"x": 2, "n.b": 3}, "removedFields": ["y"],
                     "truncatedArrays": []})")
                .ToJson());
}

TEST(EventBuilderTest, ReplacementBecomesReplaceEventWithTheNewDocument) {
  auto raw = MakeEntry("u", "db.c", R"({"_id": 1, "x": 3})",
                       Opts().O2(R"({"_id": 1})").Pre(R"({"_id": 1, "x": 2})").Replace());
  auto events = Build(raw, CollectionSpec());
  ASSERT_EQ(events.size(), 1u);
  bson::DocumentView event = events[0].document;
  EXPECT_EQ(event.Get("operationType").String(), "replace");
  EXPECT_EQ(Keys(event), (Keys_t{"_id", "operationType", "clusterTime", "wallTime", "fullDocument",
                                 "ns", "documentKey"}));
  EXPECT_EQ(event.Get("fullDocument").Document().ToJson(), Json(R"({"_id": 1, "x": 3})").ToJson());
}

TEST(EventBuilderTest, DeleteEventHasOnlyTheDocumentKey) {
  auto events = Build(MakeEntry("d", "db.c", R"({"_id": 7})"), CollectionSpec());
  ASSERT_EQ(events.size(), 1u);
  bson::DocumentView event = events[0].document;
  EXPECT_EQ(Keys(event),
            (Keys_t{"_id", "operationType", "clusterTime", "wallTime", "ns", "documentKey"}));
  EXPECT_EQ(event.Get("operationType").String(), "delete");
  EXPECT_EQ(event.Get("documentKey").Document().Get("_id").Int32(), 7);
}

TEST(EventBuilderTest, CollectionUuidAppearsOnlyWithExpandedEvents) {
  ChangeStreamSpec spec = CollectionSpec();
  spec.show_expanded_events = true;
  auto events = Build(MakeEntry("i", "db.c", R"({"_id": 1})"), spec);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(Keys(events[0].document),
            (Keys_t{"_id", "operationType", "clusterTime", "collectionUUID", "wallTime",
                    "fullDocument", "ns", "documentKey"}));
  bson::BinaryView uuid = events[0].document.Get("collectionUUID").Binary();
  EXPECT_EQ(uuid.subtype, 4);
  EXPECT_EQ(uuid.data, TestUuid(1));
}

TEST(EventBuilderTest, UpdateLookupAppendsTheCurrentDocumentLast) {
  ChangeStreamSpec spec = CollectionSpec();
  spec.full_document = FullDocumentMode::kUpdateLookup;
  std::string seen_uuid;
  EventSources sources;
  sources.lookup_document = [&](std::string_view db, std::string_view coll, std::string_view uuid,
                                bson::ValueView id) -> StatusWith<std::optional<bson::Document>> {
    EXPECT_EQ(db, "db");
    EXPECT_EQ(coll, "c");
    seen_uuid = std::string(uuid);
    if (id.Int32() == 1) return std::optional<bson::Document>(Json(R"({"_id": 1, "now": true})"));
    return std::optional<bson::Document>();
  };
  auto raw = MakeEntry("u", "db.c", R"({"_id": 1, "x": 2})",
                       Opts().O2(R"({"_id": 1})").Pre(R"({"_id": 1, "x": 1})"));
  auto events = Build(raw, spec, sources);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(Keys(events[0].document).back(), "fullDocument");
  EXPECT_EQ(events[0].document.Get("fullDocument").Document().ToJson(),
            Json(R"({"_id": 1, "now": true})").ToJson());
  EXPECT_EQ(seen_uuid, TestUuid(1));

  auto gone = MakeEntry("u", "db.c", R"({"_id": 2, "x": 2})",
                        Opts().O2(R"({"_id": 2})").Pre(R"({"_id": 2, "x": 1})"));
  auto events2 = Build(gone, spec, sources);
  ASSERT_EQ(events2.size(), 1u);
  EXPECT_EQ(events2[0].document.Get("fullDocument").type(), bson::Type::kNull);
}

// change-streams-pre_and_post_images.json: the eight on/off x whenAvailable/required cases.
struct ImageCase {
  FullDocumentMode full_document;
  BeforeChangeMode before_change;
  bool enabled;
};

TEST(EventBuilderTest, PreAndPostImagesFollowTheCollectionOption) {
  const std::string pre = R"({"_id": 1})";
  const std::string post = R"({"_id": 1, "x": 1})";
  for (bool enabled : {true, false}) {
    for (bool via_flag : {true, false}) {
      auto raw = MakeEntry("u", "db.c", post,
                           Opts()
                               .O2(R"({"_id": 1})")
                               .Pre(pre)
                               .Images(via_flag ? std::optional<bool>(enabled) : std::nullopt));
      EventSources sources;
      if (!via_flag) sources.images_enabled = [&](auto, auto) { return enabled; };
      SCOPED_TRACE(std::string(enabled ? "enabled" : "disabled") + (via_flag ? " flag" : " fn"));

      ChangeStreamSpec when_available = CollectionSpec();
      when_available.full_document = FullDocumentMode::kWhenAvailable;
      when_available.full_document_before_change = BeforeChangeMode::kWhenAvailable;
      auto events = Build(raw, when_available, sources);
      ASSERT_EQ(events.size(), 1u);
      bson::DocumentView event = events[0].document;
      EXPECT_EQ(Keys(event).back(), "fullDocumentBeforeChange");
      if (enabled) {
        EXPECT_EQ(event.Get("fullDocument").Document().ToJson(), Json(post).ToJson());
        EXPECT_EQ(event.Get("fullDocumentBeforeChange").Document().ToJson(), Json(pre).ToJson());
      } else {
        EXPECT_EQ(event.Get("fullDocument").type(), bson::Type::kNull);
        EXPECT_EQ(event.Get("fullDocumentBeforeChange").type(), bson::Type::kNull);
      }

      ChangeStreamSpec post_required = CollectionSpec();
      post_required.full_document = FullDocumentMode::kRequired;
      auto required = TryBuild(raw, post_required, sources);
      EXPECT_EQ(required.ok(), enabled);
      if (!enabled) {
        EXPECT_EQ(required.status().code(), ErrorCode::kNoMatchingDocument);
        EXPECT_TRUE(required.status().reason().starts_with(
            "Change stream was configured to require a post-image"));
      }

      ChangeStreamSpec pre_required = CollectionSpec();
      pre_required.full_document_before_change = BeforeChangeMode::kRequired;
      auto pre_result = TryBuild(raw, pre_required, sources);
      EXPECT_EQ(pre_result.ok(), enabled);
      if (!enabled) {
        EXPECT_EQ(pre_result.status().code(), ErrorCode::kNoMatchingDocument);
        EXPECT_TRUE(pre_result.status().reason().starts_with(
            "Change stream was configured to require a pre-image"));
      }

      ChangeStreamSpec off = CollectionSpec();
      auto plain = Build(raw, off, sources);
      ASSERT_EQ(plain.size(), 1u);
      EXPECT_FALSE(plain[0].document.view().Has("fullDocument"));
      EXPECT_FALSE(plain[0].document.view().Has("fullDocumentBeforeChange"));
    }
  }
}

TEST(EventBuilderTest, DeletePreImageComesFromTheLoggedPreField) {
  ChangeStreamSpec spec = CollectionSpec();
  spec.full_document_before_change = BeforeChangeMode::kWhenAvailable;
  auto with_pre =
      Build(MakeEntry("d", "db.c", R"({"_id": 1})", Opts().Pre(R"({"_id": 1, "a": 5})")), spec);
  ASSERT_EQ(with_pre.size(), 1u);
  EXPECT_EQ(with_pre[0].document.Get("fullDocumentBeforeChange").Document().Get("a").Int32(), 5);
  auto without = Build(MakeEntry("d", "db.c", R"({"_id": 1})"), spec);
  ASSERT_EQ(without.size(), 1u);
  EXPECT_EQ(without[0].document.Get("fullDocumentBeforeChange").type(), bson::Type::kNull);
  spec.full_document_before_change = BeforeChangeMode::kRequired;
  EXPECT_EQ(TryBuild(MakeEntry("d", "db.c", R"({"_id": 1})"), spec).status().code(),
            ErrorCode::kNoMatchingDocument);
}

TEST(EventBuilderTest, CollectionStreamSeesOnlyItsCollection) {
  EXPECT_TRUE(Build(MakeEntry("i", "db.other", R"({"_id": 1})"), CollectionSpec()).empty());
  EXPECT_TRUE(Build(MakeEntry("i", "db2.c", R"({"_id": 1})"), CollectionSpec()).empty());
  EXPECT_TRUE(Build(MakeEntry("i", "db.c.sub", R"({"_id": 1})"), CollectionSpec()).empty());
  EXPECT_EQ(Build(MakeEntry("i", "db.c", R"({"_id": 1})"), CollectionSpec()).size(), 1u);
  EXPECT_TRUE(Build(MakeEntry("c", "db.$cmd", R"({"drop": "other"})"), CollectionSpec()).empty());
  EXPECT_TRUE(Build(MakeEntry("n", "", R"({"msg": "noop"})"), CollectionSpec()).empty());
}

TEST(EventBuilderTest, DatabaseStreamSkipsOtherDatabasesAndSystemCollections) {
  EXPECT_EQ(Build(MakeEntry("i", "db.a", R"({"_id": 1})"), DatabaseSpec()).size(), 1u);
  EXPECT_EQ(Build(MakeEntry("i", "db.b", R"({"_id": 1})"), DatabaseSpec()).size(), 1u);
  EXPECT_TRUE(Build(MakeEntry("i", "db2.a", R"({"_id": 1})"), DatabaseSpec()).empty());
  EXPECT_TRUE(Build(MakeEntry("i", "db.system.js", R"({"_id": 1})"), DatabaseSpec()).empty());
}

TEST(EventBuilderTest, ClusterStreamSkipsInternalDatabases) {
  EXPECT_EQ(Build(MakeEntry("i", "db.a", R"({"_id": 1})"), ClusterSpec()).size(), 1u);
  EXPECT_EQ(Build(MakeEntry("i", "other.a", R"({"_id": 1})"), ClusterSpec()).size(), 1u);
  for (const char* ns : {"admin.a", "config.a", "local.a", "db.system.users"}) {
    EXPECT_TRUE(Build(MakeEntry("i", ns, R"({"_id": 1})"), ClusterSpec()).empty()) << ns;
  }
  // Never invalidated.
  EXPECT_EQ(
      Build(MakeEntry("c", "db.$cmd", R"({"dropDatabase": 1})", Opts().NoUuid()), ClusterSpec())
          .size(),
      1u);
}

TEST(EventBuilderTest, DropOfTheWatchedCollectionIsFollowedByInvalidate) {
  auto events = Build(MakeEntry("c", "db.$cmd", R"({"drop": "c"})"), CollectionSpec());
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].document.Get("operationType").String(), "drop");
  EXPECT_EQ(Keys(events[0].document),
            (Keys_t{"_id", "operationType", "clusterTime", "wallTime", "ns"}));
  EXPECT_EQ(events[0].document.Get("ns").Document().ToJson(),
            Json(R"({"db": "db", "coll": "c"})").ToJson());
  EXPECT_FALSE(events[0].invalidate);
  EXPECT_TRUE(events[1].invalidate);
  EXPECT_EQ(events[1].document.Get("operationType").String(), "invalidate");
  EXPECT_EQ(Keys(events[1].document), (Keys_t{"_id", "operationType", "clusterTime", "wallTime"}));
  EXPECT_TRUE(events[1].token.from_invalidate);
  EXPECT_GT(CompareResumeTokens(events[1].token, events[0].token), 0);

  // A database stream sees the drop without being invalidated.
  auto db_events = Build(MakeEntry("c", "db.$cmd", R"({"drop": "c"})"), DatabaseSpec());
  ASSERT_EQ(db_events.size(), 1u);
}

TEST(EventBuilderTest, RenameFromOrOntoTheWatchedCollectionInvalidates) {
  auto from = Build(MakeEntry("c", "db.$cmd",
                              R"({"renameCollection": "db.c", "to": "db.d", "stayTemp": false,
                                  "dropTarget": false})"),
                    CollectionSpec());
  ASSERT_EQ(from.size(), 2u);
  EXPECT_EQ(from[0].document.Get("operationType").String(), "rename");
  EXPECT_EQ(Keys(from[0].document),
            (Keys_t{"_id", "operationType", "clusterTime", "wallTime", "ns", "to"}));
  EXPECT_EQ(from[0].document.Get("ns").Document().ToJson(),
            Json(R"({"db": "db", "coll": "c"})").ToJson());
  EXPECT_EQ(from[0].document.Get("to").Document().ToJson(),
            Json(R"({"db": "db", "coll": "d"})").ToJson());
  EXPECT_TRUE(from[1].invalidate);

  auto onto = Build(MakeEntry("c", "db.$cmd", R"({"renameCollection": "db.x", "to": "db.c"})"),
                    CollectionSpec());
  ASSERT_EQ(onto.size(), 2u);
  EXPECT_TRUE(onto[1].invalidate);

  auto unrelated = Build(MakeEntry("c", "db.$cmd", R"({"renameCollection": "db.x", "to": "db.y"})"),
                         CollectionSpec());
  EXPECT_TRUE(unrelated.empty());
}

TEST(EventBuilderTest, DropDatabaseInvalidatesADatabaseStream) {
  auto events =
      Build(MakeEntry("c", "db.$cmd", R"({"dropDatabase": 1})", Opts().NoUuid()), DatabaseSpec());
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].document.Get("operationType").String(), "dropDatabase");
  EXPECT_EQ(events[0].document.Get("ns").Document().ToJson(), Json(R"({"db": "db"})").ToJson());
  EXPECT_TRUE(events[1].invalidate);
  EXPECT_TRUE(
      Build(MakeEntry("c", "db.$cmd", R"({"dropDatabase": 1})", Opts().NoUuid()), CollectionSpec())
          .empty());
  EXPECT_TRUE(
      Build(MakeEntry("c", "db2.$cmd", R"({"dropDatabase": 1})", Opts().NoUuid()), DatabaseSpec())
          .empty());
}

TEST(EventBuilderTest, ExpandedDdlEventsNeedShowExpandedEvents) {
  const auto create = MakeEntry("c", "db.$cmd", R"({"create": "c"})");
  const auto create_index = MakeEntry(
      "c", "db.$cmd", R"({"createIndexes": "c", "v": 2, "key": {"x": 1}, "name": "x_1"})");
  const auto drop_index = MakeEntry("c", "db.$cmd", R"({"dropIndexes": "c", "index": "x_1"})",
                                    Opts().O2(R"({"v": 2, "key": {"x": 1}, "name": "x_1"})"));
  const auto coll_mod = MakeEntry("c", "db.$cmd", R"({"collMod": "c", "validator": {}})",
                                  Opts().O2(R"({"collectionOptions_old": {"uuid": 1}})"));
  for (const auto* entry : {&create, &create_index, &drop_index, &coll_mod}) {
    EXPECT_TRUE(Build(*entry, CollectionSpec()).empty());
  }
  ChangeStreamSpec expanded = CollectionSpec();
  expanded.show_expanded_events = true;

  auto created = Build(create, expanded);
  ASSERT_EQ(created.size(), 1u);
  EXPECT_EQ(Keys(created[0].document),
            (Keys_t{"_id", "operationType", "clusterTime", "collectionUUID", "wallTime", "ns",
                    "operationDescription", "nsType"}));
  EXPECT_EQ(created[0].document.Get("operationType").String(), "create");
  EXPECT_EQ(created[0].document.Get("nsType").String(), "collection");
  EXPECT_EQ(created[0].document.Get("operationDescription").Document().ToJson(),
            Json(R"({"idIndex": {"v": 2, "key": {"_id": 1}, "name": "_id_"}})").ToJson());

  auto view = Build(MakeEntry("c", "db.$cmd", R"({"create": "c", "viewOn": "x", "pipeline": []})"),
                    expanded);
  ASSERT_EQ(view.size(), 1u);
  EXPECT_EQ(view[0].document.Get("nsType").String(), "view");

  auto indexed = Build(create_index, expanded);
  ASSERT_EQ(indexed.size(), 1u);
  EXPECT_EQ(indexed[0].document.Get("operationType").String(), "createIndexes");
  EXPECT_EQ(indexed[0].document.Get("operationDescription").Document().ToJson(),
            Json(R"({"indexes": [{"v": 2, "key": {"x": 1}, "name": "x_1"}]})").ToJson());

  auto dropped = Build(drop_index, expanded);
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_EQ(dropped[0].document.Get("operationType").String(), "dropIndexes");
  EXPECT_EQ(dropped[0].document.Get("operationDescription").Document().ToJson(),
            Json(R"({"indexes": [{"v": 2, "key": {"x": 1}, "name": "x_1"}]})").ToJson());

  auto modified = Build(coll_mod, expanded);
  ASSERT_EQ(modified.size(), 1u);
  EXPECT_EQ(modified[0].document.Get("operationType").String(), "modify");
  EXPECT_EQ(modified[0].document.Get("operationDescription").Document().ToJson(),
            Json(R"({"validator": {}})").ToJson());
  EXPECT_EQ(modified[0].document.Get("stateBeforeChange").Document().ToJson(),
            Json(R"({"collectionOptions": {"uuid": 1}})").ToJson());
}

TEST(EventBuilderTest, ExpandedRenameDescribesTheDroppedTarget) {
  bson::DocumentBuilder o;
  o.AppendString("renameCollection", "db.c");
  o.AppendString("to", "db.foo");
  o.AppendBool("stayTemp", false);
  o.AppendBinary("dropTarget", 4, TestUuid(9));
  bson::DocumentBuilder b;
  b.AppendTimestamp("ts", kTs);
  b.AppendString("op", "c");
  b.AppendString("ns", "db.$cmd");
  b.AppendBinary("ui", 4, TestUuid(1));
  b.AppendDocument("o", std::move(o).Finish());
  b.AppendDate("wall", kWall);
  ChangeStreamSpec expanded = CollectionSpec();
  expanded.show_expanded_events = true;
  auto events = Build(std::move(b).Finish(), expanded);
  ASSERT_EQ(events.size(), 2u);
  bson::DocumentView description = events[0].document.Get("operationDescription").Document();
  EXPECT_EQ(description.Get("to").Document().ToJson(),
            Json(R"({"db": "db", "coll": "foo"})").ToJson());
  EXPECT_EQ(description.Get("dropTarget").Binary().data, TestUuid(9));
}

TEST(EventBuilderTest, DisambiguatedPathsOnlyWithExpandedEvents) {
  // change-streams-disambiguatedPaths.json
  auto numeric_key = MakeEntry("u", "db.c", R"({"_id": 1, "a": {"1": 2}})",
                               Opts().O2(R"({"_id": 1})").Pre(R"({"_id": 1, "a": {"1": 1}})"));
  auto plain = Build(numeric_key, CollectionSpec());
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_FALSE(plain[0].document.Get("updateDescription").Document().Has("disambiguatedPaths"));

  ChangeStreamSpec expanded = CollectionSpec();
  expanded.show_expanded_events = true;
  auto events = Build(numeric_key, expanded);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]
                .document.Get("updateDescription")
                .Document()
                .Get("disambiguatedPaths")
                .Document()
                .ToJson(),
            Json(R"({"a.1": ["a", "1"]})").ToJson());

  auto in_array = MakeEntry("u", "db.c", R"({"_id": 1, "a": [{"1": 2}]})",
                            Opts().O2(R"({"_id": 1})").Pre(R"({"_id": 1, "a": [{"1": 1}]})"));
  auto array_events = Build(in_array, expanded);
  ASSERT_EQ(array_events.size(), 1u);
  bson::DocumentView paths = array_events[0]
                                 .document.Get("updateDescription")
                                 .Document()
                                 .Get("disambiguatedPaths")
                                 .Document();
  bson::DocumentView components = paths.Get("a.0.1").Document();
  EXPECT_EQ(components.Get("0").String(), "a");
  EXPECT_EQ(components.Get("1").type(), bson::Type::kInt32);
  EXPECT_EQ(components.Get("1").Int32(), 0);
  EXPECT_EQ(components.Get("2").String(), "1");

  auto unambiguous =
      MakeEntry("u", "db.c", R"({"_id": 1, "a": [5, 6]})",
                Opts().O2(R"({"_id": 1})").Pre(R"({"_id": 1, "a": [5, 7], "b": 1})"));
  auto simple = Build(unambiguous, expanded);
  ASSERT_EQ(simple.size(), 1u);
  EXPECT_TRUE(simple[0]
                  .document.Get("updateDescription")
                  .Document()
                  .Get("disambiguatedPaths")
                  .Document()
                  .empty());

  auto dotted = MakeEntry("u", "db.c", R"({"_id": 1, "x.y": 2})",
                          Opts().O2(R"({"_id": 1})").Pre(R"({"_id": 1, "x.y": 1})"));
  auto dotted_events = Build(dotted, expanded);
  ASSERT_EQ(dotted_events.size(), 1u);
  EXPECT_EQ(dotted_events[0]
                .document.Get("updateDescription")
                .Document()
                .Get("disambiguatedPaths")
                .Document()
                .ToJson(),
            Json(R"({"x.y": ["x.y"]})").ToJson());
}

TEST(EventBuilderTest, TokensIdentifyTheDocumentAndTheNamespace) {
  // Entries are views: keep their bytes alive while the tokens are computed.
  const bson::Document raw_a = MakeEntry("i", "db.c", R"({"_id": 1})");
  const bson::Document raw_b = MakeEntry("i", "db.c", R"({"_id": 2})");
  const bson::Document raw_c = MakeEntry("i", "db.d", R"({"_id": 1})");
  const bson::Document raw_a_again = MakeEntry("i", "db.c", R"({"_id": 1, "other": 1})");
  auto hash = [](const bson::Document& raw) {
    return EventTokenFor(storage::ParseOplogEntry(raw).value()).event_hash;
  };
  EXPECT_NE(hash(raw_a), hash(raw_b));
  EXPECT_NE(hash(raw_a), hash(raw_c));
  EXPECT_EQ(hash(raw_a), hash(raw_a_again));
}

}  // namespace
}  // namespace quarry::changestream
