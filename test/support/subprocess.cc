#include "test/support/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

extern char** environ;

namespace credledger::testing {
namespace {

void CloseFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

int PollTimeoutMs(absl::Time deadline) {
  const absl::Duration left = deadline - absl::Now();
  if (left <= absl::ZeroDuration()) return 0;
  return static_cast<int>(std::min<int64_t>(absl::ToInt64Milliseconds(left) + 1, 60'000));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Subprocess>> Subprocess::Start(
    const std::vector<std::string>& argv, const std::vector<std::string>& unset_env,
    const std::vector<std::string>& extra_env) {
  int out_pipe[2];
  int err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return absl::InternalError("pipe2 failed");
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return absl::InternalError("pipe2 failed");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);

  std::vector<std::string> replaced = unset_env;
  for (const std::string& entry : extra_env) replaced.push_back(entry.substr(0, entry.find('=')));
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    if (std::find(replaced.begin(), replaced.end(), name) == replaced.end()) {
      env_strings.push_back(entry);
    }
  }
  env_strings.insert(env_strings.end(), extra_env.begin(), extra_env.end());
  std::vector<char*> env_pointers;
  for (std::string& e : env_strings) env_pointers.push_back(e.data());
  env_pointers.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> arg_pointers;
  for (std::string& a : args) arg_pointers.push_back(a.data());
  arg_pointers.push_back(nullptr);

  auto process = std::unique_ptr<Subprocess>(new Subprocess());
  const int rc = posix_spawn(&process->pid_, args[0].c_str(), &actions, nullptr,
                             arg_pointers.data(), env_pointers.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  process->out_fd_ = out_pipe[0];
  process->err_fd_ = err_pipe[0];
  if (rc != 0) {
    process->reaped_ = true;
    return absl::InternalError(absl::StrCat("posix_spawn ", args[0], ": ", std::strerror(rc)));
  }
  return process;
}

Subprocess::~Subprocess() {
  if (!reaped_ && pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  CloseFd(out_fd_);
  CloseFd(err_fd_);
}

bool Subprocess::ReadSome(absl::Time deadline) {
  pollfd fds[2];
  int count = 0;
  if (out_fd_ >= 0) fds[count++] = {out_fd_, POLLIN, 0};
  if (err_fd_ >= 0) fds[count++] = {err_fd_, POLLIN, 0};
  if (count == 0) return true;
  const int ready = poll(fds, count, PollTimeoutMs(deadline));
  if (ready < 0 && errno == EINTR) return true;
  if (ready <= 0) return absl::Now() < deadline;
  for (int i = 0; i < count; ++i) {
    if (fds[i].revents == 0) continue;
    char buffer[4096];
    const ssize_t n = read(fds[i].fd, buffer, sizeof(buffer));
    const bool is_out = fds[i].fd == out_fd_;
    if (n > 0) {
      (is_out ? out_ : err_).append(buffer, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      CloseFd(is_out ? out_fd_ : err_fd_);
    }
  }
  return true;
}

absl::StatusOr<std::string> Subprocess::WaitForLine(const std::string& needle,
                                                    absl::Time deadline) {
  while (true) {
    size_t end;
    while ((end = out_.find('\n', scanned_)) != std::string::npos) {
      std::string line = out_.substr(scanned_, end - scanned_);
      scanned_ = end + 1;
      if (absl::StrContains(line, needle)) return line;
    }
    if (out_fd_ < 0) {
      return absl::NotFoundError(
          absl::StrCat("stdout closed before \"", needle, "\"; stderr: ", err_));
    }
    if (!ReadSome(deadline)) {
      return absl::DeadlineExceededError(
          absl::StrCat("no line with \"", needle, "\" in time; stderr: ", err_));
    }
  }
}

void Subprocess::Signal(int signal_number) {
  if (!reaped_) kill(pid_, signal_number);
}

absl::StatusOr<int> Subprocess::Wait(absl::Time deadline) {
  while (out_fd_ >= 0 || err_fd_ >= 0) {
    if (!ReadSome(deadline)) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      reaped_ = true;
      return absl::DeadlineExceededError(absl::StrCat("child still running; stderr: ", err_));
    }
  }
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  reaped_ = true;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

absl::StatusOr<RunResult> Run(const std::vector<std::string>& argv, absl::Duration timeout,
                              const std::vector<std::string>& unset_env,
                              const std::vector<std::string>& extra_env) {
  absl::StatusOr<std::unique_ptr<Subprocess>> process =
      Subprocess::Start(argv, unset_env, extra_env);
  if (!process.ok()) return process.status();
  absl::StatusOr<int> code = (*process)->Wait(absl::Now() + timeout);
  if (!code.ok()) return code.status();
  return RunResult{*code, (*process)->out(), (*process)->err()};
}

absl::Status RunOk(const std::vector<std::string>& argv, absl::Duration timeout) {
  absl::StatusOr<RunResult> run = Run(argv, timeout);
  if (!run.ok()) return run.status();
  if (run->exit_code != 0) {
    return absl::InternalError(absl::StrCat("`", absl::StrJoin(argv, " "), "` exited with ",
                                            run->exit_code, ": ", run->err, run->out));
  }
  return absl::OkStatus();
}

}  // namespace credledger::testing
