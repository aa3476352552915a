// Progress reporting for long runs (a benchmark, an import): an interface the running code
// calls, and a progress bar on a terminal that appears only once a task has run for more than a
// second.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace quarry::tools::client {

// What a long run reports as it goes. Calls come from one thread, in the order Begin,
// Advance*, End; a run may start another task after End.
class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  // `total` in the task's own unit (documents, bytes); 0 when unknown.
  virtual void Begin(std::string_view label, double total) = 0;
  virtual void Advance(double done) = 0;  // the amount done so far, not an increment
  // A short status shown after the bar (counts, rates, time left); empty clears it.
  virtual void Note(std::string_view /*text*/) {}
  virtual void End() = 0;
};

// Reports nothing.
class NoProgress : public ProgressSink {
 public:
  void Begin(std::string_view, double) override {}
  void Advance(double) override {}
  void End() override {}
};

// One line for a terminal: "label [#####.....]  45%  12.3 s  note" within `width` characters,
// or "label  12.3 s  note" when the total is unknown (0). `done` beyond `total` shows as full.
std::string FormatProgressLine(std::string_view label, double done, double total,
                               double elapsed_seconds, int width, std::string_view note = {});

// Redraws a progress line on `stream` from a background thread every 100 ms, starting once a
// task has run for `delay`, so a blocking call (one bulk write) still shows time passing.
// End() erases the line. Does nothing when disabled.
class ProgressBar : public ProgressSink {
 public:
  ProgressBar(std::FILE* stream, bool enabled,
              std::chrono::milliseconds delay = std::chrono::seconds(1));
  ~ProgressBar() override;
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void Begin(std::string_view label, double total) override;
  void Advance(double done) override;
  void Note(std::string_view text) override;
  void End() override;

 private:
  void Run();
  void Draw();  // REQUIRES: mutex_ held

  std::FILE* stream_;
  const bool enabled_;
  const std::chrono::milliseconds delay_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread thread_;
  bool stopping_ = false;
  bool active_ = false;
  bool drawn_ = false;
  std::string label_;
  std::string note_;
  double total_ = 0;
  std::atomic<double> done_{0};
  std::chrono::steady_clock::time_point started_;
};

// True when `stream` is a terminal (progress bars are for people, not for pipes).
bool IsTerminal(std::FILE* stream);

}  // namespace quarry::tools::client
