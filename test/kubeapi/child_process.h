// ChildProcess: starts a program with posix_spawn (never fork: server threads exist) with
// its stdout and stderr on one pipe, for tests that run kubectl or the API server binary.
// Waits are bounded by deadlines; nothing sleeps.
//
// Thread-safety: one ChildProcess per thread.
#pragma once

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace credledger::kubeapi::testing {

class ChildProcess {
 public:
  // Starts argv[0] (an absolute path) with `argv`, the current environment plus
  // `env_overrides`. Errors: kInternal when the pipe or spawn fails.
  static absl::StatusOr<ChildProcess> Spawn(const std::vector<std::string>& argv,
                                            const std::map<std::string, std::string>& env_overrides = {});
  ChildProcess(ChildProcess&& other) noexcept;
  ~ChildProcess();  // kills (SIGKILL) and reaps a child that is still running

  // Reads output until it contains `needle`, the pipe closes, or `timeout` passes; returns
  // everything read so far.
  std::string ReadUntil(const std::string& needle, absl::Duration timeout);
  // Reads output until the child closes it (normally at exit) or `timeout` passes.
  std::string ReadToEnd(absl::Duration timeout);
  // Sends `signal` to the child.
  void Signal(int signal);
  // Reaps the child after its output closed; the exit code, or 128+signal when killed,
  // or nullopt when it did not exit within `timeout`.
  std::optional<int> Wait(absl::Duration timeout);

 private:
  ChildProcess(pid_t pid, int output_fd) : pid_(pid), output_fd_(output_fd) {}
  // Reads once (waiting until `deadline`); false at end of output or timeout.
  bool ReadSome(absl::Time deadline);

  pid_t pid_ = -1;
  int output_fd_ = -1;
  std::string output_;
  bool reaped_ = false;
};

// Runs `argv` to completion (bounded by `timeout`); returns the exit code and output.
struct RunResult {
  std::optional<int> exit_code;
  std::string output;
};
RunResult RunToCompletion(const std::vector<std::string>& argv,
                          const std::map<std::string, std::string>& env_overrides,
                          absl::Duration timeout);

}  // namespace credledger::kubeapi::testing
