// The terminal progress bar.
#include "tools/client/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>

namespace quarry::tools::client {

std::string FormatProgressLine(std::string_view label, double done, double total,
                               double elapsed_seconds, int width, std::string_view note) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.1f s", elapsed_seconds);
  std::string line(label);
  if (total > 0) {
    double fraction = std::clamp(done / total, 0.0, 1.0);
    char percent[16];
    std::snprintf(percent, sizeof percent, "%3d%%", static_cast<int>(std::floor(fraction * 100)));
    // label, " [", bar, "] ", percent, "  ", seconds, "  ", note
    int fixed = static_cast<int>(line.size()) + 4 +
                static_cast<int>(std::string_view(percent).size()) + 2 +
                static_cast<int>(std::string_view(seconds).size()) +
                (note.empty() ? 0 : 2 + static_cast<int>(note.size()));
    int bar = std::clamp(width - fixed, 10, 50);
    int filled = static_cast<int>(std::floor(fraction * bar));
    line += " [" + std::string(static_cast<std::size_t>(filled), '#') +
            std::string(static_cast<std::size_t>(bar - filled), '.') + "] " + percent;
  }
  line += "  ";
  line += seconds;
  if (!note.empty()) {
    line += "  ";
    line += note;
  }
  if (width > 0 && static_cast<int>(line.size()) > width)
    line.resize(static_cast<std::size_t>(width));
  return line;
}

bool IsTerminal(std::FILE* stream) { return ::isatty(::fileno(stream)) == 1; }

ProgressBar::ProgressBar(std::FILE* stream, bool enabled, std::chrono::milliseconds delay)
    : stream_(stream), enabled_(enabled), delay_(delay) {
  if (enabled_) thread_ = std::thread([this] { Run(); });
}

ProgressBar::~ProgressBar() {
  if (!enabled_) return;
  End();
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void ProgressBar::Begin(std::string_view label, double total) {
  if (!enabled_) return;
  std::lock_guard lock(mutex_);
  label_ = label;
  note_.clear();
  total_ = total;
  done_ = 0;
  started_ = std::chrono::steady_clock::now();
  active_ = true;
}

void ProgressBar::Advance(double done) {
  if (enabled_) done_ = done;
}

void ProgressBar::Note(std::string_view text) {
  if (!enabled_) return;
  std::lock_guard lock(mutex_);
  note_ = text;
}

void ProgressBar::End() {
  if (!enabled_) return;
  std::lock_guard lock(mutex_);
  if (drawn_) {
    // Blank the line and return to its start, so the next output begins clean.
    std::fprintf(stream_, "\r%*s\r", 79, "");
    std::fflush(stream_);
  }
  active_ = false;
  drawn_ = false;
}

void ProgressBar::Run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, std::chrono::milliseconds(100));
    if (active_ && std::chrono::steady_clock::now() - started_ >= delay_) Draw();
  }
}

void ProgressBar::Draw() {
  double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  std::string line = FormatProgressLine(label_, done_.load(), total_, elapsed, 79, note_);
  std::fprintf(stream_, "\r%-79s", line.c_str());
  std::fflush(stream_);
  drawn_ = true;
}

}  // namespace quarry::tools::client
