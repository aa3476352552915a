// CPU used over a search row by this process and by the server, so a row can say where its CPU
// went: on a small machine the clients of the wire rows share the cores with the server, while
// the in-process rows have them to themselves.
#pragma once

namespace quarry::bench {

// CPU used by this process and by process `pid` (see bench/clients/process_cpu.h) between
// construction and Stop().
class CpuMeter {
 public:
  explicit CpuMeter(int pid);
  struct Used {
    double own_seconds = 0;
    double pid_seconds = -1;  // -1: not measured
  };
  Used Stop() const;

 private:
  int pid_;
  double own_start_;
  double pid_start_;
};

}  // namespace quarry::bench
