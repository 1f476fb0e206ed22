// ModeOf and ScopedUmask: file permissions in tests, for tests only. A file that cannot be
// examined has mode 0 (the test's own expectations then fail).
#pragma once

#include <sys/stat.h>

#include <filesystem>

namespace credledger::testing {

// The permission bits of the file at `path`; 0 when it cannot be examined.
inline mode_t ModeOf(const std::filesystem::path& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return 0;
  return info.st_mode & 07777;
}

// Sets the process umask for one test and restores it.
class ScopedUmask {
 public:
  explicit ScopedUmask(mode_t mask) : previous_(umask(mask)) {}
  ~ScopedUmask() { umask(previous_); }
  ScopedUmask(const ScopedUmask&) = delete;
  ScopedUmask& operator=(const ScopedUmask&) = delete;

 private:
  mode_t previous_;
};

}  // namespace credledger::testing
