// Reading the catalog family, which holds one entry per collection; the catalog/ layer owns the
// keys and values and loads them all at start. Writes go through WriteUnit::PutCatalog.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace quarry::storage {

namespace internal {
struct EngineState;
}  // namespace internal

class CatalogStore {
 public:
  explicit CatalogStore(internal::EngineState* state) : state_(state) {}

  // Every (key, value) in key order.
  StatusWith<std::vector<std::pair<std::string, std::string>>> ScanAll() const;

 private:
  internal::EngineState* state_;
};

}  // namespace quarry::storage
