// Reads every byte of a validated document through the public views, so the sanitizers see
// any read that validation should have prevented.
#pragma once

#include <cstdint>
#include <string>

#include "bson/value.h"

namespace quarry::fuzz {

inline std::uint64_t TouchDocument(bson::DocumentView doc, int depth = 0) {
  std::uint64_t sink = doc.size() + doc.CountElements();
  for (const bson::Element& element : doc) {
    sink += element.key.size();
    const bson::ValueView& v = element.value;
    switch (v.type()) {
      case bson::Type::kDouble:
        sink += static_cast<std::uint64_t>(v.Double() != 0);
        break;
      case bson::Type::kString:
      case bson::Type::kCode:
      case bson::Type::kSymbol:
        sink += v.String().size();
        break;
      case bson::Type::kDocument:
      case bson::Type::kArray:
        sink += TouchDocument(v.Document(), depth + 1);
        break;
      case bson::Type::kBinary:
        sink += v.Binary().data.size() + v.Binary().subtype;
        break;
      case bson::Type::kObjectId:
        sink += v.Oid().bytes[11];
        break;
      case bson::Type::kBool:
        sink += v.Bool();
        break;
      case bson::Type::kDate:
        sink += static_cast<std::uint64_t>(v.Date());
        break;
      case bson::Type::kRegex:
        sink += v.Regex().pattern.size() + v.Regex().options.size();
        break;
      case bson::Type::kInt32:
        sink += static_cast<std::uint64_t>(v.Int32());
        break;
      case bson::Type::kTimestamp:
        sink += v.Timestamp();
        break;
      case bson::Type::kInt64:
        sink += static_cast<std::uint64_t>(v.Int64());
        break;
      case bson::Type::kDecimal128:
        sink += v.Dec128().low;
        break;
      default:
        sink += v.size();
        break;
    }
    if (v.IsNumber()) {
      sink += static_cast<std::uint64_t>(v.AsInt64()) + v.IsIntegral();
      sink += static_cast<std::uint64_t>(v.AsDouble() > 0);
    }
    sink += v.Truthy();
  }
  if (depth == 0) sink += doc.FirstKey().size() + doc.Get("$db").exists();
  return sink;
}

}  // namespace quarry::fuzz
