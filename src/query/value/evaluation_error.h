// Errors met while a filter is evaluated against one document. Match nodes answer a bool, which
// keeps the per-document path cheap, so a node that cannot decide (a $expr whose expression
// fails, a regular expression past its match limit) reports the error here instead;
// Matcher::Evaluate installs a sink around one evaluation and fails the query with it.
#pragma once

#include "base/status.h"

namespace quarry::query {

// Collects the first error reported on this thread while it is installed. Sinks nest: each
// restores the one it replaced.
class EvaluationErrorSink {
 public:
  EvaluationErrorSink();
  ~EvaluationErrorSink();
  EvaluationErrorSink(const EvaluationErrorSink&) = delete;
  EvaluationErrorSink& operator=(const EvaluationErrorSink&) = delete;

  // The first error reported since this sink was installed (OK if none), and forgets it.
  Status TakeError();

 private:
  friend void ReportEvaluationError(Status error);
  EvaluationErrorSink* previous_;
  Status error_;
};

// Hands `error` to this thread's sink. Without one (a caller that only wants a bool, such as a
// partial index's filter), the error is dropped and the node answers "no match".
void ReportEvaluationError(Status error);

}  // namespace quarry::query
