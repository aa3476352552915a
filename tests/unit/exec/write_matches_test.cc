// How writes target documents: every match with its counts and periodic commits, the first
// match by _id or by a sort, and what happens when another client changes a target between its
// read and the write's commit.
#include "exec/write_matches.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "exec/operation_work.h"
#include "exec_test_util.h"

namespace quarry::exec {
namespace {

using testing::Bumped;
using testing::Doc;
using testing::Filter;
using testing::With;

int IdOf(bson::DocumentView doc) { return static_cast<int>(doc.Get("_id").AsInt64()); }

std::int64_t BumpsOf(const std::optional<bson::Document>& doc) {
  if (!doc.has_value() || !doc->Get("bumps").exists()) return 0;
  return doc->Get("bumps").AsInt64();
}

class WriteMatchesTest : public testing::ExecFixture {
 protected:
  // A change that bumps every document it is given, remembering each version it saw.
  ChangeFunction Bump() {
    return [this](bson::DocumentView doc, const query::MatchDetails&,
                  storage::WriteUnit* unit) -> StatusWith<bool> {
      seen_.push_back(bson::Document::Copy(doc));
      unit->Update(collection_.ref(), doc, Bumped(doc), storage::UpdateKind::kModify);
      return true;
    };
  }

  // Bumps every document it is given; but the first time it meets document `raced` (-1: any),
  // another client first commits `field: value` to that document, so the bump's pre-image is
  // stale when it commits.
  ChangeFunction BumpRacing(int raced, std::string field, int value) {
    auto raced_yet = std::make_shared<bool>(false);
    ChangeFunction bump = Bump();
    return [this, raced, field, value, raced_yet, bump](
               bson::DocumentView doc, const query::MatchDetails& details,
               storage::WriteUnit* unit) -> StatusWith<bool> {
      if (!*raced_yet && (raced < 0 || IdOf(doc) == raced)) {
        *raced_yet = true;
        ReplaceNow(doc, With(doc, field, value));
      }
      return bump(doc, details, unit);
    };
  }

  // A committer that commits through the engine and counts the commits and their sizes.
  Committer CountingCommit() {
    Committer commit = Commit();
    return [this, commit](storage::WriteUnit unit, bool ordered) {
      commit_sizes_.push_back(unit.size());
      return commit(std::move(unit), ordered);
    };
  }

  // ChangeFirstMatch of `filter` in _id order (or `sort`'s), committing through
  // CountingCommit; an error fails the test.
  std::optional<FirstMatch> ChangeFirst(std::string_view filter, const ChangeFunction& change,
                                        const query::SortSpec* sort = nullptr) {
    StatusWith<std::optional<FirstMatch>> first =
        ChangeFirstMatch(ctx_, collection_, Filter(filter), sort, CountingCommit(), change);
    EXPECT_TRUE(first.ok()) << first.status().ToString();
    return first.ok() ? std::move(first).value() : std::nullopt;
  }

  std::vector<bson::Document> seen_;
  std::vector<std::size_t> commit_sizes_;
};

TEST_F(WriteMatchesTest, EveryMatchIsChangedAndCounted) {
  InsertNumbered(10, 2);
  StatusWith<MatchCounts> counts =
      ChangeEveryMatch(ctx_, collection_, Filter(R"({"a": 0})"), Commit(), Bump());
  ASSERT_TRUE(counts.ok()) << counts.status().ToString();
  EXPECT_EQ(counts.value().matched, 5);
  EXPECT_EQ(counts.value().changed, 5);
  for (int id = 0; id < 10; ++id) EXPECT_EQ(BumpsOf(Stored(id)), id % 2 == 0 ? 1 : 0) << id;
}

TEST_F(WriteMatchesTest, MatchesTheChangeLeavesAloneCountAsMatchedNotChanged) {
  InsertNumbered(10);
  ChangeFunction bump = Bump();
  auto only_even = [&bump](bson::DocumentView doc, const query::MatchDetails& details,
                           storage::WriteUnit* unit) -> StatusWith<bool> {
    if (IdOf(doc) % 2 != 0) return false;
    return bump(doc, details, unit);
  };
  StatusWith<MatchCounts> counts =
      ChangeEveryMatch(ctx_, collection_, Filter(R"({"_id": {"$lt": 6}})"), Commit(), only_even);
  ASSERT_TRUE(counts.ok()) << counts.status().ToString();
  EXPECT_EQ(counts.value().matched, 6);
  EXPECT_EQ(counts.value().changed, 3);
  EXPECT_EQ(BumpsOf(Stored(1)), 0);
  EXPECT_EQ(BumpsOf(Stored(2)), 1);
}

TEST_F(WriteMatchesTest, LargeChangesCommitEveryThousandDocuments) {
  const int total = 2500;
  InsertNumbered(total);
  StatusWith<MatchCounts> counts =
      ChangeEveryMatch(ctx_, collection_, Filter("{}"), CountingCommit(), Bump());
  ASSERT_TRUE(counts.ok()) << counts.status().ToString();
  EXPECT_EQ(counts.value().changed, total);
  EXPECT_EQ(commit_sizes_, (std::vector<std::size_t>{1000, 1000, 500}));
  EXPECT_EQ(BumpsOf(Stored(total - 1)), 1);
}

TEST_F(WriteMatchesTest, NothingMatchingCommitsNothing) {
  InsertNumbered(10);
  StatusWith<MatchCounts> counts =
      ChangeEveryMatch(ctx_, collection_, Filter(R"({"a": -1})"), CountingCommit(), Bump());
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts.value().matched, 0);
  EXPECT_TRUE(commit_sizes_.empty());
}

// Another client changes document 7 after the write read it and before the write commits: the
// write's commit conflicts, and the write reads 7 again and changes its latest version once.
TEST_F(WriteMatchesTest, DocumentChangedConcurrentlyIsChangedOnceFromItsLatestVersion) {
  const int total = 1500;  // the conflict lands in the first of two commits
  const int raced = 7;
  InsertNumbered(total);
  ThisThreadWork() = OperationWork();
  StatusWith<MatchCounts> counts =
      ChangeEveryMatch(ctx_, collection_, Filter("{}"), Commit(), BumpRacing(raced, "other", 1));
  ASSERT_TRUE(counts.ok()) << counts.status().ToString();
  EXPECT_EQ(ThisThreadWork().write_conflicts, 1);  // serverStatus' metrics.operation counts it
  EXPECT_EQ(ThisThreadWork().plan_summary, "COLLSCAN");
  EXPECT_EQ(ThisThreadWork().docs_examined, total);
  EXPECT_EQ(counts.value().matched, total);
  EXPECT_EQ(counts.value().changed, total);
  std::optional<bson::Document> stored = Stored(raced);
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->Get("other").AsInt64(), 1);  // the concurrent change survives
  EXPECT_EQ(BumpsOf(stored), 1);
  int versions_seen = 0;
  for (const bson::Document& doc : seen_) versions_seen += IdOf(doc) == raced ? 1 : 0;
  EXPECT_EQ(versions_seen, 2);
  EXPECT_EQ(seen_.back().Get("other").AsInt64(), 1);
}

TEST_F(WriteMatchesTest, DocumentThatStopsMatchingConcurrentlyIsSkipped) {
  InsertNumbered(10, 2);  // a: 0 for even ids
  const int raced = 4;
  StatusWith<MatchCounts> counts = ChangeEveryMatch(ctx_, collection_, Filter(R"({"a": 0})"),
                                                    Commit(), BumpRacing(raced, "a", 1));
  ASSERT_TRUE(counts.ok()) << counts.status().ToString();
  EXPECT_EQ(counts.value().matched, 4);
  EXPECT_EQ(counts.value().changed, 4);
  EXPECT_EQ(BumpsOf(Stored(raced)), 0);
  EXPECT_EQ(Stored(raced)->Get("a").AsInt64(), 1);
  EXPECT_EQ(BumpsOf(Stored(raced + 2)), 1);
}

TEST_F(WriteMatchesTest, DocumentDeletedConcurrentlyIsSkipped) {
  InsertNumbered(5);
  auto racing = [&](bson::DocumentView doc, const query::MatchDetails&,
                    storage::WriteUnit* unit) -> StatusWith<bool> {
    if (IdOf(doc) == 2) DeleteNow(doc);
    unit->Delete(collection_.ref(), doc);
    return true;
  };
  StatusWith<MatchCounts> counts =
      ChangeEveryMatch(ctx_, collection_, Filter("{}"), Commit(), racing);
  ASSERT_TRUE(counts.ok()) << counts.status().ToString();
  EXPECT_EQ(counts.value().matched, 4);
  EXPECT_EQ(counts.value().changed, 4);
  EXPECT_TRUE(StoredDocuments().empty());
}

TEST_F(WriteMatchesTest, AnErrorFromTheChangeFailsTheWrite) {
  InsertNumbered(10);
  int calls = 0;
  auto failing = [&](bson::DocumentView doc, const query::MatchDetails&,
                     storage::WriteUnit*) -> StatusWith<bool> {
    ++calls;
    if (IdOf(doc) == 3) return Status(ErrorCode::kDocumentValidationFailure, "invalid");
    return false;
  };
  StatusWith<MatchCounts> counts =
      ChangeEveryMatch(ctx_, collection_, Filter("{}"), Commit(), failing);
  EXPECT_EQ(counts.status().code(), ErrorCode::kDocumentValidationFailure);
  EXPECT_EQ(calls, 4);  // the scan stops at the failing document
}

TEST_F(WriteMatchesTest, FirstMatchIsTheLowestId) {
  InsertNumbered(10, 3);
  std::optional<FirstMatch> first = ChangeFirst(R"({"a": 1})", Bump());
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(IdOf(first->doc), 1);
  EXPECT_TRUE(first->changed);
  EXPECT_FALSE(first->doc.Get("bumps").exists());  // as read, before the change
  EXPECT_EQ(commit_sizes_, (std::vector<std::size_t>{1}));
  EXPECT_EQ(BumpsOf(Stored(1)), 1);
  EXPECT_EQ(BumpsOf(Stored(4)), 0);
}

TEST_F(WriteMatchesTest, FirstMatchFollowsTheSortWhenThereIsOne) {
  InsertNumbered(10, 3);
  StatusWith<query::SortSpec> sort = query::SortSpec::Parse(Doc(R"({"_id": -1})"));
  ASSERT_TRUE(sort.ok());
  std::optional<FirstMatch> first = ChangeFirst(R"({"a": 1})", Bump(), &sort.value());
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(IdOf(first->doc), 7);
  EXPECT_EQ(BumpsOf(Stored(7)), 1);
  EXPECT_EQ(BumpsOf(Stored(1)), 0);
}

TEST_F(WriteMatchesTest, FirstMatchThatStopsMatchingConcurrentlyMovesTheWriteToTheNext) {
  InsertNumbered(10, 3);
  std::optional<FirstMatch> first = ChangeFirst(R"({"a": 1})", BumpRacing(-1, "a", 99));
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(IdOf(first->doc), 4);
  EXPECT_EQ(Stored(1)->Get("a").AsInt64(), 99);
  EXPECT_EQ(BumpsOf(Stored(1)), 0);
  EXPECT_EQ(BumpsOf(Stored(4)), 1);
}

TEST_F(WriteMatchesTest, FirstMatchChangedConcurrentlyIsChangedOnceFromItsLatestVersion) {
  InsertNumbered(10, 3);
  std::optional<FirstMatch> first = ChangeFirst(R"({"a": 1})", BumpRacing(-1, "other", 1));
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(IdOf(first->doc), 1);
  EXPECT_EQ(first->doc.Get("other").AsInt64(), 1);
  EXPECT_EQ(Stored(1)->Get("other").AsInt64(), 1);
  EXPECT_EQ(BumpsOf(Stored(1)), 1);
}

TEST_F(WriteMatchesTest, FirstMatchOfNothingIsNullopt) {
  InsertNumbered(10);
  int calls = 0;
  auto count_calls = [&](bson::DocumentView, const query::MatchDetails&,
                         storage::WriteUnit*) -> StatusWith<bool> {
    ++calls;
    return true;
  };
  std::optional<FirstMatch> first = ChangeFirst(R"({"a": -1})", count_calls);
  EXPECT_FALSE(first.has_value());
  EXPECT_EQ(calls, 0);
  EXPECT_TRUE(commit_sizes_.empty());
}

TEST_F(WriteMatchesTest, FirstMatchTheChangeLeavesAloneCommitsNothing) {
  InsertNumbered(3);
  auto leave = [](bson::DocumentView, const query::MatchDetails&,
                  storage::WriteUnit*) -> StatusWith<bool> { return false; };
  std::optional<FirstMatch> first = ChangeFirst("{}", leave);
  ASSERT_TRUE(first.has_value());
  EXPECT_FALSE(first->changed);
  EXPECT_EQ(IdOf(first->doc), 0);
  EXPECT_TRUE(commit_sizes_.empty());
}

TEST_F(WriteMatchesTest, ReadByIdSeesTheStoredVersion) {
  InsertNumbered(3);
  bson::Document id = IdDocument(Doc(R"({"v": 2})").Get("v"));
  EXPECT_EQ(id.ToJson(), Doc(R"({"_id": 2})").ToJson());
  StatusWith<std::optional<bson::Document>> read = ReadById(ctx_, collection_, id.Get("_id"));
  ASSERT_TRUE(read.ok() && read.value().has_value());
  EXPECT_EQ(read.value()->ToJson(), Stored(2)->ToJson());
  bson::Document missing = Doc(R"({"_id": 99})");
  read = ReadById(ctx_, collection_, missing.Get("_id"));
  ASSERT_TRUE(read.ok());
  EXPECT_FALSE(read.value().has_value());
}

}  // namespace
}  // namespace quarry::exec
