// Owners of ICU's C handles that the text layer opens: unique_ptr deleters.
#pragma once

#include <unicode/ubrk.h>
#include <unicode/utext.h>

#include <memory>

namespace quarry::text {

struct UTextCloser {
  void operator()(UText* text) const { utext_close(text); }
};
struct BreakIteratorCloser {
  void operator()(UBreakIterator* iterator) const { ubrk_close(iterator); }
};

using UTextPtr = std::unique_ptr<UText, UTextCloser>;
using BreakIteratorPtr = std::unique_ptr<UBreakIterator, BreakIteratorCloser>;

}  // namespace quarry::text
