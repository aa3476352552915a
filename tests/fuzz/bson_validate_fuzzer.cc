// Fuzzes bson::Validate, then proves that validated bytes are safe to read: every value is
// visited through DocumentView's accessors and the document is printed and compared.
#include <cstdint>
#include <cstdlib>

#include "bson/compare.h"
#include "bson/validate.h"
#include "bson/value.h"
#include "touch_document.h"

namespace {
volatile std::uint64_t g_sink;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const char* bytes = reinterpret_cast<const char*>(data);
  const std::int64_t peeked = quarry::bson::PeekDocumentLength(bytes, size);
  if (peeked > static_cast<std::int64_t>(size)) std::abort();
  if (!quarry::bson::Validate(bytes, size).ok()) return 0;
  if (peeked != static_cast<std::int64_t>(size)) std::abort();

  quarry::bson::DocumentView doc(bytes);
  std::uint64_t sink = quarry::fuzz::TouchDocument(doc);
  sink += doc.ToJson().size();
  sink += doc.ToCanonicalJson().size();
  sink += static_cast<std::uint64_t>(quarry::bson::CompareDocuments(doc, doc) + 1);
  for (const quarry::bson::Element& element : doc) {
    sink += element.value.ToJson().size();
  }
  g_sink = g_sink + sink;
  return 0;
}
