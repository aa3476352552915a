// The stream of stored documents a query reads, in storage order. storage/ stays below query/,
// so the lead's adapter turns a storage record cursor into this interface.
#pragma once

#include <string_view>

#include "base/status.h"
#include "bson/value.h"

namespace quarry::query {

class RecordSource {
 public:
  virtual ~RecordSource() = default;

  // False once the source is past its last record or has failed (then status() says why).
  virtual bool Valid() const = 0;
  // REQUIRES: Valid().
  virtual void Next() = 0;
  // The storage key of the current record, to resume after it. REQUIRES: Valid(). Valid until
  // Next().
  virtual std::string_view key() const = 0;
  // The current document. REQUIRES: Valid(). Valid until Next().
  virtual bson::DocumentView document() const = 0;
  // Non-OK if reading failed; Valid() is then false.
  virtual Status status() const = 0;
};

}  // namespace quarry::query
