#include "query/value/evaluation_error.h"

#include <utility>

namespace quarry::query {
namespace {

thread_local EvaluationErrorSink* current_sink = nullptr;

}  // namespace

EvaluationErrorSink::EvaluationErrorSink() : previous_(current_sink) { current_sink = this; }

EvaluationErrorSink::~EvaluationErrorSink() { current_sink = previous_; }

Status EvaluationErrorSink::TakeError() { return std::exchange(error_, Status::OK()); }

void ReportEvaluationError(Status error) {
  if (current_sink != nullptr && current_sink->error_.ok()) current_sink->error_ = std::move(error);
}

}  // namespace quarry::query
