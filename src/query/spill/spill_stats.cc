#include "query/spill/spill_stats.h"

namespace quarry::query {

// Never destroyed, so a query ending during shutdown still has them.
SpillCounters& SortSpillCounters() {
  static auto* counters = new SpillCounters();
  return *counters;
}

SpillCounters& GroupSpillCounters() {
  static auto* counters = new SpillCounters();
  return *counters;
}

}  // namespace quarry::query
