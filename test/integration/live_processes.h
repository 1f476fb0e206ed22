// LiveProcessTest: a fixture for acceptance tests through the real binaries (docs/testing.md,
// "Integration tests"). It runs the test Kubernetes API server as its own process
// (credledger-test-apiserver, namespace `demo`, state in a temp dir), so that it outlives
// `credledger serve` processes started, killed and restarted on one event log (a SQLite file, or
// a PostgreSQL database after UsePostgresLog); drives them with the `credledger` CLI; and reads
// back what they leave: the cluster's credential Secrets (through an admin KubeClient) and the
// event log (opened read-only through store::OpenLog, as `credledger verify` opens it).
// Every process takes port 0 and reports its address; every wait has a deadline and blocks on a
// pipe (a `target watch` stream), never on a sleep.
//
// The binaries come from the compile definitions CREDLEDGER_BINARY and
// CREDLEDGER_TEST_APISERVER_BINARY.
//
// Thread-safety: a fixture belongs to its test's thread.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "kubebridge/client/kube_client.h"
#include "nlohmann/json.hpp"
#include "projections/credential_projection.h"
#include "store/event_store.h"
#include "store/open/log_location.h"
#include "test/support/postgres_server.h"
#include "test/support/subprocess.h"
#include "test/support/temp_dir.h"

namespace credledger::testing {

inline constexpr char kLiveNamespace[] = "demo";
// How long any single wait of these tests may take.
inline constexpr absl::Duration kLiveWait = absl::Seconds(30);

// Bytes a token must never be found in, and what they are (for failure messages).
struct Haystack {
  std::string what;
  std::string bytes;
};

// The password UsePostgresLog puts in the --store-password-file: no output may show it.
inline constexpr char kLiveStorePassword[] = "live-store-password-5d1c";

// The start of every service-account token as a JWT (base64url of `{"alg":`) and as a
// Secret stores it (base64 of that): finds tokens nobody read from a Secret.
inline constexpr const char* kJwtMarkers[] = {"eyJhbGciOi", "ZXlKaGJHY2lPaU"};

class LiveProcessTest : public ::testing::Test {
 protected:
  // Starts the API server and the admin client.
  void SetUp() override;
  // Stops serve (SIGTERM) when it runs, then the API server.
  void TearDown() override;

  // From now on serve keeps its log in `database` on `server` (not owned; outlives the
  // fixture) instead of the SQLite file db_path(): --store with a password file (the test
  // server trusts local connections, so the password is passed on but never checked) and a
  // fingerprint key made with `credledger keygen` (docs/operations.md, "PostgreSQL").
  // REQUIRES: serve is not running.
  void UsePostgresLog(PostgresServer& server, const std::string& database);
  // The flags that name the log for serve and the offline commands: --db <db_path()>, or
  // --store <conninfo> --store-password-file <file> after UsePostgresLog.
  std::vector<std::string> LogFlags() const;

  // Starts `credledger serve` on the log (LogFlags) against the API server, with
  // CREDLEDGER_FAULT_POINTS=`fault_points` when not empty and `extra_args` appended, and
  // waits for its ready line.
  void StartServe(const std::string& fault_points = "",
                  const std::vector<std::string>& extra_args = {});
  // StartServe in two halves, for tests that may kill serve before it is ready: LaunchServe
  // starts the process; AwaitServeReady waits for its ready line and sets serve_address_,
  // or returns false (no test failure) when serve ended first.
  void LaunchServe(const std::string& fault_points = "",
                   const std::vector<std::string>& extra_args = {});
  bool AwaitServeReady();
  // SIGKILL (unless serve already ended, e.g. at a fault point); expects exit 128 + SIGKILL.
  void KillServe();
  // SIGTERM; expects a clean exit (0).
  void StopServe();
  // Waits until serve ends by itself, or kills it (SIGKILL) at `deadline`; expects exit
  // 128 + SIGKILL either way. Returns the fault point serve logged reaching before it
  // ended (common/fault_points.h), or "" when it logged none (the deadline ended it).
  std::string AwaitServeEnd(absl::Time deadline);
  // Waits (kLiveWait) for serve to kill itself at the armed fault point `point`; expects
  // exit 128 + SIGKILL and that serve logged reaching `point`.
  void ExpectServeKilledByFaultPoint(const std::string& point);

  // Writes <dir>/agent/kubeconfig for the SolAr-side API server (its CA; user tokenFile
  // <dir>/agent/token) and puts `token` in the token file, replacing it atomically as a
  // Secret mount update would. Returns the kubeconfig's path.
  std::filesystem::path WriteAgentKubeconfig(const std::string& token);
  // Starts `credledger agent` for demo/`target` with the kubeconfig of WriteAgentKubeconfig,
  // the admin kubeconfig as its target cluster, and `extra_args`.
  absl::StatusOr<std::unique_ptr<Subprocess>> StartAgent(
      const std::string& target, const std::vector<std::string>& extra_args);
  // Runs `credledger agent ... --once` for demo/`target` to completion.
  RunResult RunAgentOnce(const std::string& target);

  // Runs `credledger <args> --server <serve address>` to completion and keeps its output.
  RunResult Cli(std::vector<std::string> args);
  // Runs `credledger <args>` (an offline command: keygen, verify, ...) and keeps its output.
  RunResult OfflineCli(std::vector<std::string> args);
  // Starts `credledger <args> --server <serve address>` (a watch) and returns it running.
  absl::StatusOr<std::unique_ptr<Subprocess>> StartCli(std::vector<std::string> args);
  // Follows `credledger target watch --output json` (snapshot, then changes) until an item
  // for demo/`target` satisfies `done`; returns that item's `target` object (null JSON after
  // a failed wait, with a test failure naming `what`). The watch's output is kept.
  nlohmann::json WaitForTarget(const std::string& target,
                               const std::function<bool(const nlohmann::json&)>& done,
                               const std::string& what);
  // Follows `credledger fleet --watch --output json` until the rollup of demo/`target`
  // satisfies `done`; returns that `status` object (null JSON after a failed wait).
  nlohmann::json WaitForStatus(const std::string& target,
                               const std::function<bool(const nlohmann::json&)>& done,
                               const std::string& what);
  // WaitForTarget until the Target has a current credential, Secret
  // solar-agent-<target>-<n> with n >= `min_suffix`, no mint is open and
  // AgentCredentialReady is True. (At least, not exactly: a wrong suffix is then reported by
  // the test's own checks rather than as a timeout.)
  nlohmann::json WaitForCurrentCredential(const std::string& target, int64_t min_suffix);

  // The credential Secrets of `target` in the cluster (label
  // solar.opendefense.cloud/agent-credential=<target>), read directly.
  std::vector<nlohmann::json> CredentialSecrets(const std::string& target);
  // The token a credential Secret holds (data.token, base64-decoded); empty when none.
  static std::string TokenOf(const nlohmann::json& secret);
  // The username a TokenReview of `token` answers; empty when not authenticated.
  std::string ReviewedUser(const std::string& token);

  // Every event of the log after `after_seq` in seq order, read page by page from the log
  // opened read-only (store::OpenLog on the location LogFlags names).
  std::vector<store::RecordedEvent> ReadLog(int64_t after_seq = 0);
  // The credential projection folded from `events`.
  static projections::CredentialProjection Fold(const std::vector<store::RecordedEvent>& events);

  std::filesystem::path db_path() const { return dir_.path() / "var" / "events.db"; }
  std::filesystem::path serve_port_file() const { return dir_.path() / "serve.port"; }
  // The files UsePostgresLog writes: the --store-password-file (holding
  // kLiveStorePassword) and the --fingerprint-key.
  std::filesystem::path store_password_file() const { return dir_.path() / "store-password"; }
  std::filesystem::path fingerprint_key_file() const { return dir_.path() / "fingerprint-key"; }
  // Adds the log's bytes as they are now (`when` names the moment) to `haystacks_`: the
  // SQLite database file and its -wal and -shm files; on PostgreSQL every table of the
  // database copied out in COPY's binary format (bytea columns as their raw bytes), and the
  // server's log.
  void KeepDatabaseFiles(const std::string& when);
  // Adds the output of every serve process that ended and of every CLI run to `haystacks_`.
  void KeepProcessOutputs();
  // Expects none of `needles` in any of `haystacks_`.
  void ExpectNotFoundAnywhere(const std::vector<std::string>& needles);

  TempDir dir_;
  std::unique_ptr<Subprocess> apiserver_;
  std::string apiserver_url_;
  std::unique_ptr<kubebridge::KubeClient> admin_;
  std::unique_ptr<Subprocess> serve_;
  std::string serve_address_;
  // stdout and stderr of every serve process that ended, and of every CLI run.
  std::vector<std::string> serve_outputs_;
  std::vector<RunResult> cli_outputs_;
  std::vector<Haystack> haystacks_;

 private:
  std::vector<std::string> AgentArgv(const std::string& target) const;
  // Follows the watch `credledger <watch_args> --output json` until an item's `item_key`
  // object for demo/`target` satisfies `done`.
  nlohmann::json WaitForWatchItem(std::vector<std::string> watch_args, const std::string& item_key,
                                  const std::string& target,
                                  const std::function<bool(const nlohmann::json&)>& done,
                                  const std::string& what);
  // `credledger <args> --server <serve address>`.
  std::vector<std::string> CliArgv(std::vector<std::string> args) const;
  // Runs `argv` to completion and keeps its output in cli_outputs_.
  RunResult RunAndKeep(const std::vector<std::string>& argv);
  // Reaps serve within the deadline and keeps its output; returns its exit code (-1 when
  // it did not end in time).
  int ReapServe();
  // The log LogFlags names, as the CLI parses those flags. Errors: store::ParseLogLocation's.
  absl::StatusOr<store::LogLocation> Location() const;
  // KeepDatabaseFiles on PostgreSQL.
  void KeepPostgresTables(const std::string& when);

  // Set by UsePostgresLog; null: the SQLite file db_path().
  PostgresServer* postgres_ = nullptr;
  std::string postgres_database_;
  std::string postgres_conninfo_;
};

}  // namespace credledger::testing
