// The documents of `quarry bench large-docs`: JSON of a chosen size made of nested arrays of
// realistic records (people with addresses, tags, orders and scores), from a fixed seed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace quarry::tools::bench {

// A JSON object {"_id": id, "records": [...]} of at least `bytes` bytes (a record more, at most).
std::string LargeJsonDocument(const std::string& id, std::size_t bytes, std::uint64_t seed);

}  // namespace quarry::tools::bench
