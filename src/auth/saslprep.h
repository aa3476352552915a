// SASLprep (RFC 4013), which SCRAM-SHA-256 applies to passwords, as mongod does.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace quarry::auth {

// The prepared form of UTF-8 `text`: non-ASCII spaces mapped to space, "mapped to nothing"
// characters removed, NFKC; prohibited characters and bidi errors fail with BadValue.
// Printable ASCII comes back unchanged without calling ICU.
StatusWith<std::string> SaslPrep(std::string_view text);

}  // namespace quarry::auth
