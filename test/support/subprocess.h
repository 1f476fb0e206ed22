// Child processes for tests (the integration and kubeapi suites), started with posix_spawn
// (never fork: the test process has gRPC or server threads). stdout and stderr are captured
// through separate pipes; every wait has a deadline and uses poll(2) on the pipes, never
// sleeps.
//
// Thread-safety: one Subprocess per thread.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace credledger::testing {

class Subprocess {
 public:
  // Starts `argv[0]` (a path) with `argv`, the test's environment minus the variables named
  // in `unset_env` plus the "NAME=value" entries of `extra_env` (which replace variables of
  // the same name), stdin from /dev/null.
  // Errors: kInternal when the pipes or posix_spawn fail.
  static absl::StatusOr<std::unique_ptr<Subprocess>> Start(
      const std::vector<std::string>& argv, const std::vector<std::string>& unset_env = {},
      const std::vector<std::string>& extra_env = {});
  // Kills (SIGKILL) and reaps the child if it still runs.
  ~Subprocess();

  // Reads stdout until a complete line containing `needle` arrived; returns that line.
  // Errors: kDeadlineExceeded at the deadline; kNotFound when stdout closed first.
  absl::StatusOr<std::string> WaitForLine(const std::string& needle, absl::Time deadline);
  // Sends `signal_number` to the child.
  void Signal(int signal_number);
  // Reads both pipes to their end and reaps the child; returns its exit code (128 + signal
  // when killed by a signal). Errors: kDeadlineExceeded (the child is then killed).
  absl::StatusOr<int> Wait(absl::Time deadline);

  // Everything read so far.
  const std::string& out() const { return out_; }
  const std::string& err() const { return err_; }

 private:
  Subprocess() = default;
  // Polls both pipes once until `deadline`; false when it passed.
  bool ReadSome(absl::Time deadline);

  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  std::string out_;
  std::string err_;
  size_t scanned_ = 0;  // bytes of out_ already searched for complete lines
  bool reaped_ = false;
};

// Runs a short-lived command to completion: exit code, stdout, stderr.
struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};
// `unset_env` and `extra_env` as for Subprocess::Start.
absl::StatusOr<RunResult> Run(const std::vector<std::string>& argv, absl::Duration timeout,
                              const std::vector<std::string>& unset_env = {},
                              const std::vector<std::string>& extra_env = {});
// Runs a command that must succeed (a setup step), like Run.
// Errors: those of Run; kInternal with the command line, its exit code and its output when it
// exits with anything but 0.
absl::Status RunOk(const std::vector<std::string>& argv, absl::Duration timeout);

}  // namespace credledger::testing
