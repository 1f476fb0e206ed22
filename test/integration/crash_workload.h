// Crash consistency under a scripted workload (docs/testing.md, "Crash test"; docs/design.md,
// "Intent and outcome"): the fixture and the body that the run on a SQLite file
// (crash_workload_test.cc) and the run on a PostgreSQL database
// (postgres_crash_workload_test.cc) share.
//
// `credledger serve` runs on one event log (LiveProcessTest::LogFlags) against the test API
// server (its own process, so the cluster outlives every serve). Each cycle starts serve, lets
// a client thread send a few commands through the gRPC API (register, rotate, confirm a
// rollout, which releases the older Secrets for cleanup, revoke, lift, delete, push a report)
// while another rotates the data of an identity's source Secret (the mirror path), and kills
// serve with SIGKILL at a random moment: after a random delay, or before it is even ready in
// some cycles. Every CrashRunPlan::arm_every-th cycle arms a fault point instead
// (test/integration/fault_point_list.h, each in turn) and runs the workload until serve kills
// itself there. The next cycle restarts serve on the same log. Checked throughout:
//
// - every acknowledged command is in the log (by request id), and a command the crash cut
//   off, retried with its request id, is answered as a replay exactly when it had been
//   committed;
// - every cycle with a fault point armed ends there (the workload reaches every point), and a
//   run long enough to arm each point once did;
// - the log's chain and signed checkpoints verify (`credledger verify`) up to the highest
//   acknowledged seq;
// - at most one current credential per Target, no two credential records for one Secret;
// - every few cycles and at the end, once the bridge has caught up: no credential Secret
//   without a token, every Secret credledger manages is explained by the log (its uid in a
//   CredentialSecretCreated or MirrorWritten event) and is the one the log holds, the
//   current Secret's token has the recorded fingerprint and authenticates as the Target's
//   ServiceAccount, the mirror holds the source's data, deleted and revoked Targets have no
//   Secret left;
// - no token ever reaches the log, the database (LiveProcessTest::KeepDatabaseFiles) or any
//   output.
//
// CREDLEDGER_CRASH_SEED (default: from the clock, printed) repeats a run's choices; the
// plan's variable sets its number of cycles.
//
// Thread-safety: a fixture belongs to its test's thread (the workload's client thread only
// touches the Workload while the test waits for it).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "projections/credential_projection.h"
#include "test/integration/crash_workload_client.h"
#include "test/integration/live_processes.h"

namespace credledger::testing::crash_workload {

// What differs between the runs of the crash workload.
struct CrashRunPlan {
  // The environment variable that sets the number of cycles (a whole number >= 1), and the
  // number without it.
  const char* cycles_variable = "CREDLEDGER_CRASH_CYCLES";
  int default_cycles = 200;
  // Every this many-th cycle (>= 1) arms a fault point; a run of at least
  // arm_every * (number of fault points) cycles arms each of them.
  int arm_every = 4;
};

// The kills at one fault point: all of them, and those during start-up.
struct PointTally {
  int kills = 0;
  int during_start_up = 0;

  // Counts a cycle that armed `point`, in which serve ended (during start-up when
  // `start_up`) having reached `reached` (empty when it reached no point). Fails (fatally)
  // unless serve died at `point`: the workload reaches every point within the wait.
  void Count(const std::string& point, const std::string& reached, bool start_up);
};

// What the log says so far, folded incrementally as it grows.
struct LogView {
  int64_t seq = 0;
  projections::CredentialProjection credentials;
  std::set<std::string> request_ids;
  std::map<int64_t, std::string> request_id_at;  // seq -> request id of its event
  std::set<std::string> credential_secret_uids;  // CredentialSecretCreated
  std::set<std::string> mirror_uids;             // MirrorWritten
  std::string source_digest;                     // the last SourceSecretObserved
  std::string mirror_digest;                     // the last MirrorWritten in the mirror namespace
  std::string mirror_uid;
  std::map<std::string, int> event_counts;  // by type
};

class CrashWorkloadTest : public LiveProcessTest {
 protected:
  // Runs the workload's cycles on the log LogFlags names, with the checks above, and prints
  // the seed first and a summary at the end. REQUIRES: serve is not running; the log is
  // empty or missing.
  void RunCrashWorkload(const CrashRunPlan& plan);

 private:
  // Folds the events appended since the last call into `log_`.
  void CatchUpLog();
  // The checks that hold at every moment: acknowledged commands are in the log, one current
  // credential at most.
  void ExpectLogInvariants();
  // What still differs between the log's intent and the cluster; empty when the bridge has
  // caught up and everything credledger keeps in the cluster is explained by the log.
  std::vector<std::string> Divergences();
  // The mirror holds the source's data, is the Secret the log last wrote, for the source
  // hash the log last observed; every Secret credledger manages is explained by the log.
  void MirrorDivergences(std::vector<std::string>& problems);
  // Waits (polling the log and the cluster) until nothing diverges.
  void ExpectConvergence(int cycle);
  // `credledger verify` with the public key, up to the highest acknowledged seq.
  void ExpectLogVerifies();
  // The mirror's namespace, the source Secret, a Role letting the identity's actor read it,
  // and the identity bound to a Job there.
  void CreateIdentity();
  // Rotates the source Secret's data (what its owner does; the bridge then rewrites the
  // mirror).
  void RotateSource(int version);

  crash_workload_client::Workload workload_{0};
  LogView log_;
  std::filesystem::path public_key_;
};

}  // namespace credledger::testing::crash_workload
