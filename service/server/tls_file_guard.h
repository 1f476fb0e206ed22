// TlsFileGuard: the server's TLS files as gRPC's file watcher reads them, but only after they
// passed the checks `serve` makes at start (docs/operations.md, "TLS certificates";
// docs/api.md, "Transport").
//
// gRPC's FileWatcherCertificateProvider takes whatever the files hold at each refresh: a key
// that does not belong to its certificate, a half-written file or a CA bundle without a
// certificate makes every new connection fail until the files are fixed. The guard reads
// --tls-cert, --tls-key and --tls-client-ca every reload interval and copies them into a
// private directory (mode 0700 under the temporary directory, key copy mode 0600) only when
// they pass; gRPC watches the copies, re-reading them every second, so that an accepted change
// reaches new connections within a second of the check. Files that fail are logged (once per
// problem, never their content) and counted, and the last good copies stay in use. The
// directory is named "credledger-tls-<pid>-XXXXXX"; at start the guard removes such
// directories of this user whose process is gone (a serve killed without shutting down).
//
// Publication is atomic for gRPC's reader: each accepted set goes into a new generation
// directory, and a symlink `current` is renamed over to point at it; gRPC reads
// `current/key.pem` and `current/cert.pem` and retries when their modification times
// changed during the read (whole seconds). Generations are published at least one reload
// interval (>= 1 s) apart, so consecutive ones differ in modification second; the two newest
// are kept so that a reader that resolved the link just before a swap still finds its files.
//
// Thread-safety: the counters may be read from any thread; the guard's own thread does the
// checks.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "service/wire/grpc_tls.h"

namespace credledger::service {

class TlsFileGuard {
 public:
  // How often gRPC re-reads the staged copies (a stat and a read of three small files).
  static constexpr absl::Duration kStagedRefresh = absl::Seconds(1);

  // Reads and checks `files` now (errors as ServerTlsCredentials: kInvalidArgument naming the
  // flag, kNotFound / kFailedPrecondition for unreadable files), stages the copies and starts
  // re-checking every files.reload_interval (>= 1 s, else kInvalidArgument).
  // Errors also: kInternal when the private directory cannot be created or written.
  static absl::StatusOr<std::unique_ptr<TlsFileGuard>> Start(const ServerTlsFiles& files);
  // Stops the checks and removes the private directory.
  ~TlsFileGuard();
  TlsFileGuard(const TlsFileGuard&) = delete;
  TlsFileGuard& operator=(const TlsFileGuard&) = delete;

  // The staged copies for gRPC to watch: cert_file, key_file and (when the flags gave one)
  // client_ca_file under the private directory, with reload_interval kStagedRefresh.
  const ServerTlsFiles& staged() const { return staged_; }
  // Changed file sets copied in since the start.
  int64_t published() const { return published_.load(); }
  // Checks that found the files failing (each check counts once).
  int64_t refused() const { return refused_.load(); }

 private:
  TlsFileGuard(ServerTlsFiles files, std::filesystem::path dir);
  // The bytes of the three files (ca "" without a client CA).
  struct FileSet {
    std::string cert;
    std::string key;
    std::string ca;
    friend bool operator==(const FileSet&, const FileSet&) = default;
  };
  // Reads and checks the files named by `files_`.
  absl::StatusOr<FileSet> ReadChecked() const;
  // Writes `set` as the next generation and points `current` at it.
  absl::Status Publish(const FileSet& set);
  // One re-check: publishes a changed valid set, logs and counts a failing one.
  void Check();
  void Run();

  const ServerTlsFiles files_;
  const std::filesystem::path dir_;
  ServerTlsFiles staged_;
  FileSet last_;  // what `current` holds; only the guard's thread after Start
  int64_t generation_ = 0;
  std::string last_problem_;  // the problem logged last; "" after a good check
  std::atomic<int64_t> published_{0};
  std::atomic<int64_t> refused_{0};

  absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace credledger::service
