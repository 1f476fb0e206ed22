#include "test/kubeapi/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_cat.h"

extern char** environ;

namespace credledger::kubeapi::testing {

absl::StatusOr<ChildProcess> ChildProcess::Spawn(
    const std::vector<std::string>& argv, const std::map<std::string, std::string>& env_overrides) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return absl::InternalError("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);

  std::vector<std::string> env_storage;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry = *e;
    std::string key = entry.substr(0, entry.find('='));
    if (env_overrides.count(key) == 0) env_storage.push_back(entry);
  }
  for (const auto& [key, value] : env_overrides) env_storage.push_back(absl::StrCat(key, "=", value));
  std::vector<char*> envp;
  for (std::string& e : env_storage) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> argp;
  for (std::string& a : args) argp.push_back(a.data());
  argp.push_back(nullptr);

  pid_t pid = -1;
  int rc = posix_spawn(&pid, argp[0], &actions, nullptr, argp.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return absl::InternalError(absl::StrCat("posix_spawn ", argv[0], ": errno ", rc));
  }
  return ChildProcess(pid, fds[0]);
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(other.pid_), output_fd_(other.output_fd_), output_(std::move(other.output_)),
      reaped_(other.reaped_) {
  other.pid_ = -1;
  other.output_fd_ = -1;
}

ChildProcess::~ChildProcess() {
  if (output_fd_ >= 0) close(output_fd_);
  if (pid_ > 0 && !reaped_) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

bool ChildProcess::ReadSome(absl::Time deadline) {
  if (output_fd_ < 0) return false;
  int64_t wait_ms = absl::ToInt64Milliseconds(deadline - absl::Now());
  if (wait_ms < 0) return false;
  pollfd p{output_fd_, POLLIN, 0};
  int ready = poll(&p, 1, static_cast<int>(wait_ms));
  if (ready <= 0) return ready < 0 && errno == EINTR;
  char buf[4096];
  ssize_t n = read(output_fd_, buf, sizeof(buf));
  if (n <= 0) {
    close(output_fd_);
    output_fd_ = -1;
    return false;
  }
  output_.append(buf, static_cast<size_t>(n));
  return true;
}

std::string ChildProcess::ReadUntil(const std::string& needle, absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  while (output_.find(needle) == std::string::npos && ReadSome(deadline)) {
  }
  return output_;
}

std::string ChildProcess::ReadToEnd(absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  while (ReadSome(deadline)) {
  }
  return output_;
}

void ChildProcess::Signal(int signal) {
  if (pid_ > 0 && !reaped_) kill(pid_, signal);
}

std::optional<int> ChildProcess::Wait(absl::Duration timeout) {
  ReadToEnd(timeout);
  if (output_fd_ >= 0) return std::nullopt;  // still writing: did not exit in time
  int status = 0;
  if (waitpid(pid_, &status, 0) != pid_) return std::nullopt;
  reaped_ = true;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

RunResult RunToCompletion(const std::vector<std::string>& argv,
                          const std::map<std::string, std::string>& env_overrides,
                          absl::Duration timeout) {
  RunResult result;
  absl::StatusOr<ChildProcess> child = ChildProcess::Spawn(argv, env_overrides);
  if (!child.ok()) {
    result.output = child.status().ToString();
    return result;
  }
  result.exit_code = child->Wait(timeout);
  result.output = child->ReadToEnd(absl::ZeroDuration());
  return result;
}

}  // namespace credledger::kubeapi::testing
