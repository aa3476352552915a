// Error labels on change-stream command errors: drivers resume on ResumableChangeStreamError and
// stop on NonResumableChangeStreamError (change-streams-resume-errorLabels.json).
#include "changestream/error_labels.h"

#include <gtest/gtest.h>

namespace quarry::changestream {
namespace {

TEST(ErrorLabelsTest, TransientErrorsAreResumable) {
  for (int code : {6, 7, 63, 89, 91, 133, 150, 189, 234, 262, 9001, 10107, 11600, 11602, 13388,
                   13435, 13436}) {
    EXPECT_EQ(ChangeStreamErrorLabel(static_cast<ErrorCode>(code)), kResumableChangeStreamError)
        << code;
  }
}

TEST(ErrorLabelsTest, HistoryLostAndFatalErrorsAreNonResumable) {
  EXPECT_EQ(ChangeStreamErrorLabel(ErrorCode::kChangeStreamHistoryLost),
            kNonResumableChangeStreamError);
  EXPECT_EQ(ChangeStreamErrorLabel(ErrorCode::kChangeStreamFatalError),
            kNonResumableChangeStreamError);
  EXPECT_EQ(ChangeStreamErrorLabel(ErrorCode::kChangeStreamFatalError, true),
            kNonResumableChangeStreamError);
}

TEST(ErrorLabelsTest, OtherErrorsGetNoLabel) {
  // change-streams-errors.json: ElectionInProgress must surface, not resume.
  for (ErrorCode code : {ErrorCode::kElectionInProgress, ErrorCode::kCursorNotFound,
                         ErrorCode::kBadValue, ErrorCode::kNoMatchingDocument,
                         ErrorCode::kInvalidResumeToken, ErrorCode::kInternalError}) {
    EXPECT_FALSE(ChangeStreamErrorLabel(code).has_value()) << static_cast<int>(code);
  }
}

TEST(ErrorLabelsTest, WriteConcernErrorSuppressesTheResumableLabel) {
  EXPECT_FALSE(ChangeStreamErrorLabel(ErrorCode::kHostUnreachable, true).has_value());
}

TEST(ErrorLabelsTest, NewCodesHaveMongodNames) {
  EXPECT_EQ(ErrorCodeName(ErrorCode::kInvalidResumeToken), "InvalidResumeToken");
  EXPECT_EQ(ErrorCodeName(ErrorCode::kChangeStreamFatalError), "ChangeStreamFatalError");
  EXPECT_EQ(ErrorCodeName(ErrorCode::kNoMatchingDocument), "NoMatchingDocument");
  EXPECT_EQ(ErrorCodeName(ErrorCode::kElectionInProgress), "ElectionInProgress");
}

}  // namespace
}  // namespace quarry::changestream
