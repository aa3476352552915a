// CPU time of this process and of the server, so a search row can say where its CPU went: on a
// small machine the clients of the wire rows share the cores with the server, while the
// in-process rows have them to themselves.
#pragma once

namespace quarry::bench {

// CPU seconds (user + system) this process has used.
double OwnCpuSeconds();
// CPU seconds (user + system) of process `pid` from /proc/<pid>/stat, at its clock-tick
// resolution; -1 when it cannot be read (or pid <= 0).
double CpuSecondsOf(int pid);

// CPU used by this process and by process `pid` between construction and Stop().
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
