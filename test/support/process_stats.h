// What this process uses now, from /proc/self: its threads and its resident memory. For tests
// and benchmarks that show a load costs no thread per item, and what it holds.
#pragma once

#include <dirent.h>
#include <unistd.h>

#include <fstream>

namespace credledger::testing {

// Threads of this process; -1 when /proc/self/task cannot be read.
inline int ThreadCount() {
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return -1;
  int count = 0;
  while (const dirent* entry = readdir(dir)) {
    if (entry->d_name[0] != '.') ++count;
  }
  closedir(dir);
  return count;
}

// Resident memory of this process in MiB (/proc/self/statm); 0 when it cannot be read.
inline double ResidentMib() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0;
  long resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) /
         (1024.0 * 1024.0);
}

}  // namespace credledger::testing
