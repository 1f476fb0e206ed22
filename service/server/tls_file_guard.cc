#include "service/server/tls_file_guard.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <system_error>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/atomic_file.h"
#include "common/log.h"
#include "common/status_macros.h"

namespace credledger::service {
namespace {

namespace fs = std::filesystem;

constexpr char kCurrentLink[] = "current";
constexpr char kCertName[] = "cert.pem";
constexpr char kKeyName[] = "key.pem";
constexpr char kCaName[] = "ca.pem";

fs::path GenerationDir(const fs::path& dir, int64_t generation) {
  return dir / absl::StrCat("gen-", generation);
}

constexpr absl::string_view kCopiesLabel = "TLS file copies";

// The guard's errors are kInternal (TlsFileGuard::Start).
absl::Status Internal(const absl::Status& status) {
  return status.ok() ? status : absl::InternalError(status.message());
}

// Writes the new copy `path` with `mode` less the umask (common/atomic_file.h).
absl::Status WriteCopy(const fs::path& path, const std::string& bytes, mode_t mode) {
  return Internal(common::WriteFileAtomically(
      path, bytes, {.label = kCopiesLabel, .mode = mode, .replace = false}));
}

constexpr absl::string_view kDirPrefix = "credledger-tls-";

// The directories of this process's live guards, which RemoveStaleDirs leaves alone.
absl::Mutex live_dirs_mu(absl::kConstInit);
std::set<std::string>& LiveDirs() ABSL_EXCLUSIVE_LOCKS_REQUIRED(live_dirs_mu) {
  static auto* dirs = new std::set<std::string>();
  return *dirs;
}

// Removes the directories "credledger-tls-<pid>-*" in `parent` that this user owns and whose
// process is gone: a serve killed without its shutdown (SIGKILL, an OOM kill) leaves its
// copies behind. A directory with this process's own pid is stale too (a container restarted
// under the same pid); directories of live processes stay.
void RemoveStaleDirs(const fs::path& parent) ABSL_EXCLUSIVE_LOCKS_REQUIRED(live_dirs_mu) {
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(parent, ec)) {
    const std::string name = entry.path().filename().string();
    if (!absl::StartsWith(name, kDirPrefix)) continue;
    absl::string_view rest = absl::string_view(name).substr(kDirPrefix.size());
    int pid = 0;
    if (!absl::SimpleAtoi(rest.substr(0, rest.find('-')), &pid) || pid <= 0) continue;
    struct stat st {};
    if (lstat(entry.path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
      continue;
    }
    if (pid != getpid() && (kill(pid, 0) == 0 || errno != ESRCH)) continue;
    if (LiveDirs().count(entry.path().string()) != 0) continue;
    std::error_code ignored;
    fs::remove_all(entry.path(), ignored);
    common::Log(common::LogLevel::kInfo,
                "removed TLS file copies left by a process that did not shut down",
                {{"directory", entry.path().string()}});
  }
}

// A new private directory "credledger-tls-<pid>-XXXXXX" under the temporary directory
// (mkdtemp: mode 0700), after removing the stale ones.
absl::StatusOr<fs::path> MakePrivateDir() {
  std::error_code ec;
  fs::path parent = fs::temp_directory_path(ec);
  if (ec) return absl::InternalError(absl::StrCat("TLS file copies: ", ec.message()));
  absl::MutexLock lock(&live_dirs_mu);
  RemoveStaleDirs(parent);
  std::string pattern = (parent / absl::StrCat(kDirPrefix, getpid(), "-XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) {
    return absl::InternalError(absl::StrCat("TLS file copies: cannot create a directory in ",
                                            parent.string(), ": ", std::strerror(errno)));
  }
  LiveDirs().insert(pattern);
  return fs::path(pattern);
}

}  // namespace

absl::StatusOr<std::unique_ptr<TlsFileGuard>> TlsFileGuard::Start(const ServerTlsFiles& files) {
  if (files.reload_interval < absl::Seconds(1)) {
    return absl::InvalidArgumentError("TLS reload interval: below 1s");
  }
  ASSIGN_OR_RETURN(ServerTlsBytes first, ReadServerTlsFiles(files));
  ASSIGN_OR_RETURN(fs::path dir, MakePrivateDir());
  std::unique_ptr<TlsFileGuard> guard(new TlsFileGuard(files, std::move(dir)));
  RETURN_IF_ERROR(guard->Publish({first.cert, first.key, first.client_ca}));
  guard->thread_ = std::thread([g = guard.get()] { g->Run(); });
  return guard;
}

TlsFileGuard::TlsFileGuard(ServerTlsFiles files, fs::path dir)
    : files_(std::move(files)), dir_(std::move(dir)) {
  const fs::path current = dir_ / kCurrentLink;
  staged_.cert_file = (current / kCertName).string();
  staged_.key_file = (current / kKeyName).string();
  if (!files_.client_ca_file.empty()) staged_.client_ca_file = (current / kCaName).string();
  // gRPC re-reads the copies often, so that a published change applies within a second.
  staged_.reload_interval = kStagedRefresh;
}

TlsFileGuard::~TlsFileGuard() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
  absl::MutexLock lock(&live_dirs_mu);
  std::error_code ignored;
  fs::remove_all(dir_, ignored);
  LiveDirs().erase(dir_.string());
}

absl::StatusOr<TlsFileGuard::FileSet> TlsFileGuard::ReadChecked() const {
  ASSIGN_OR_RETURN(ServerTlsBytes bytes, ReadServerTlsFiles(files_));
  return FileSet{std::move(bytes.cert), std::move(bytes.key), std::move(bytes.client_ca)};
}

absl::Status TlsFileGuard::Publish(const FileSet& set) {
  const int64_t next = generation_ + 1;
  const fs::path gen = GenerationDir(dir_, next);
  std::error_code ec;
  if (!fs::create_directory(gen, ec) || ec) {
    return absl::InternalError(absl::StrCat("TLS file copies: cannot create ", gen.string(), ": ",
                                            ec ? ec.message() : "exists"));
  }
  RETURN_IF_ERROR(WriteCopy(gen / kCertName, set.cert, 0644));
  RETURN_IF_ERROR(WriteCopy(gen / kKeyName, set.key, 0600));
  if (!files_.client_ca_file.empty()) {
    RETURN_IF_ERROR(WriteCopy(gen / kCaName, set.ca, 0644));
  }
  // A relative link, moved over the old one: readers see the old set or the new one.
  const fs::path link_tmp = dir_ / absl::StrCat(kCurrentLink, ".tmp");
  fs::remove(link_tmp, ec);
  fs::create_directory_symlink(gen.filename(), link_tmp, ec);
  if (ec) {
    return absl::InternalError(
        absl::StrCat("TLS file copies: cannot switch to ", gen.string(), ": ", ec.message()));
  }
  RETURN_IF_ERROR(
      Internal(common::MoveIntoPlace(link_tmp, dir_ / kCurrentLink, {.label = kCopiesLabel})));
  // Keep this generation and the one before it.
  if (next > 2) fs::remove_all(GenerationDir(dir_, next - 2), ec);
  generation_ = next;
  last_ = set;
  return absl::OkStatus();
}

void TlsFileGuard::Check() {
  absl::StatusOr<FileSet> set = ReadChecked();
  absl::Status published = absl::OkStatus();
  if (set.ok() && *set != last_) {
    published = Publish(*set);
    if (published.ok()) {
      published_.fetch_add(1);
      common::Log(common::LogLevel::kInfo,
                  "TLS files changed; new connections use the new certificate");
    }
  }
  const absl::Status problem = set.ok() ? published : set.status();
  if (problem.ok()) {
    last_problem_.clear();
    return;
  }
  refused_.fetch_add(1);
  if (std::string(problem.message()) == last_problem_) return;
  last_problem_ = std::string(problem.message());
  common::Log(common::LogLevel::kWarning,
              "TLS files not reloaded; new connections keep the last good certificate",
              {{"error", last_problem_}});
}

void TlsFileGuard::Run() {
  absl::MutexLock lock(&mu_);
  while (!mu_.AwaitWithTimeout(absl::Condition(&stopping_), files_.reload_interval)) {
    mu_.Unlock();
    Check();
    mu_.Lock();
  }
}

}  // namespace credledger::service
