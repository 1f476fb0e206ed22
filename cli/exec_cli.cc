#include "cli/exec_cli.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/credentials_env.h"
#include "common/file_util.h"
#include "common/quote_cut.h"
#include "common/status_macros.h"

namespace credledger::cli {
namespace {

// Longest part of a variable name, and of the command, quoted on stderr.
constexpr size_t kShownNameBytes = 128;
constexpr size_t kShownCommandBytes = 300;

absl::Status DirError(const std::filesystem::path& dir, const std::error_code& error) {
  std::string message =
      absl::StrCat("credentials directory \"", dir.string(), "\": ", error.message());
  if (error == std::errc::no_such_file_or_directory) return absl::NotFoundError(message);
  return absl::FailedPreconditionError(message);
}

absl::Status FileError(const std::filesystem::path& path, absl::string_view reason) {
  return absl::FailedPreconditionError(
      absl::StrCat("credential file \"", path.string(), "\": ", reason));
}

std::vector<std::string> InheritedEnvironment() {
  std::vector<std::string> entries;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    entries.emplace_back(*entry);
  }
  return entries;
}

// The content of directory entry `path` when it is a credential file (rules in
// ReadCredentialsDir); nullopt for entries that are skipped.
absl::StatusOr<std::optional<std::string>> ReadCredentialFile(const std::filesystem::path& path) {
  if (absl::StartsWith(path.filename().string(), ".")) return std::nullopt;
  std::error_code error;
  const std::filesystem::file_status link = std::filesystem::symlink_status(path, error);
  if (error) return FileError(path, error.message());
  if (!std::filesystem::is_regular_file(link) && !std::filesystem::is_symlink(link)) {
    return std::nullopt;
  }
  const std::filesystem::file_status target = std::filesystem::status(path, error);
  if (error) return FileError(path, error.message());
  if (!std::filesystem::is_regular_file(target)) return std::nullopt;
  absl::StatusOr<std::string> content = common::ReadSmallFile(path, kMaxCredentialFileBytes);
  if (!content.ok()) {
    return absl::Status(content.status().code(),
                        absl::StrCat("credential file ", content.status().message()));
  }
  return *std::move(content);
}

// NULL-terminated array of pointers into `strings`, which must outlive it.
std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (std::string& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

// `names`, each quoted, joined by ", ".
std::string QuotedList(const std::vector<std::string>& names) {
  return absl::StrJoin(names, ", ", [](std::string* out, const std::string& name) {
    absl::StrAppend(out, common::QuoteCut(name, kShownNameBytes));
  });
}

// Tells on `err` which variables `command` does not get and which files were ignored (the
// rules of credentials_env.h); names only.
void ReportFiltered(const CredentialsEnvironment& environment, const std::string& command,
                    std::ostream& err) {
  std::vector<std::string> groups;
  if (!environment.removed_from_files.empty()) {
    groups.push_back(absl::StrCat("from files: ", QuotedList(environment.removed_from_files)));
  }
  if (!environment.removed_inherited.empty()) {
    groups.push_back(absl::StrCat("inherited: ", QuotedList(environment.removed_inherited)));
  }
  if (!groups.empty()) {
    err << "exec: not passed to " << common::QuoteCut(command, kShownCommandBytes)
        << " (TF_/KUBE_ variables): " << absl::StrJoin(groups, "; ") << "\n";
  }
  if (!environment.ignored_files.empty()) {
    err << "exec: files ignored, the caller's value (if any) is kept: "
        << QuotedList(environment.ignored_files) << "\n";
  }
  if (!environment.skipped.empty()) {
    err << "exec: skipped keys that cannot be environment variables: "
        << QuotedList(environment.skipped) << "\n";
  }
}

class ExecCommand final : public Subcommand {
 public:
  void DefineFlags(FlagSet& flags) override {
    flags_ = &flags;
    flags.Add("credentials-dir", &dir_,
              "folder of credential files, one per key (a mounted mirror Secret)");
  }

  int Run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) override {
    if (dir_.empty()) {
      err << "error: exec: --credentials-dir is required\n";
      return kExitUsage;
    }
    if (flags_->positional_before_terminator() != 0) {
      err << "error: exec: the command goes after --: credledger exec --credentials-dir DIR "
             "-- CMD [ARGS...]\n";
      return kExitUsage;
    }
    absl::StatusOr<std::vector<std::pair<std::string, std::string>>> files =
        ReadCredentialsDir(dir_);
    if (!files.ok()) return ReportError(files.status(), err);
    CredentialsEnvironment environment =
        BuildCredentialsEnvironment(InheritedEnvironment(), *files);
    ReportFiltered(environment, args[0], err);

    std::vector<std::string> argv = args;
    std::vector<char*> argv_pointers = CStrings(argv);
    std::vector<char*> env_pointers = CStrings(environment.env);
    out.flush();
    err.flush();
    std::fflush(nullptr);
    // PATH is searched as the caller's environment has it.
    ::execvpe(argv_pointers[0], argv_pointers.data(), env_pointers.data());
    const int error = errno;
    const bool not_found = error == ENOENT || error == ENOTDIR;
    err << "exec: " << args[0] << ": " << (not_found ? "command not found" : std::strerror(error))
        << "\n";
    return not_found ? kExitCommandNotFound : kExitCommandNotExecutable;
  }

 private:
  std::string dir_;
  const FlagSet* flags_ = nullptr;  // the set DefineFlags filled; outlives Run
};

}  // namespace

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ReadCredentialsDir(
    const std::filesystem::path& dir) {
  std::error_code error;
  std::filesystem::directory_iterator it(dir, error);
  if (error) return DirError(dir, error);
  std::vector<std::pair<std::string, std::string>> files;
  while (it != std::filesystem::directory_iterator()) {
    ASSIGN_OR_RETURN(std::optional<std::string> content, ReadCredentialFile(it->path()));
    if (content.has_value()) files.emplace_back(it->path().filename().string(), *content);
    it.increment(error);
    if (error) return DirError(dir, error);
  }
  std::sort(files.begin(), files.end());
  return files;
}

void AddExecCommands(Dispatcher& dispatcher) {
  dispatcher.Add(
      {"exec", "-- <command> [<argument>...]",
       "run a command with a credentials folder as its environment", 1,
       std::numeric_limits<size_t>::max(), [] { return std::make_unique<ExecCommand>(); },
       "Replaces credledger with <command>. Each file directly in --credentials-dir (a\n"
       "mounted mirror Secret; names starting with '.' are skipped) becomes an environment\n"
       "variable, overriding an inherited one. Then every variable starting with TF_ or\n"
       "KUBE_ is removed, inherited or not, except TF_IN_AUTOMATION, TF_INPUT and\n"
       "KUBE_NAMESPACE, which keep their inherited values (files of those names are\n"
       "ignored). Stderr names the removed variables, telling those from files and the\n"
       "inherited ones apart, and the ignored files; never values. The files stay readable.\n"
       "\n"
       "Exit codes: <command>'s own; 2 for usage errors, 1 when the folder cannot be read,\n"
       "127 when <command> is not found, 126 when it cannot be executed.\n"});
}

}  // namespace credledger::cli
