// FleetDriver: writes a realistic credential log for projection tests by running client
// commands through TargetCommandBus and answering mint intents and releases the way the kube
// bridge would (docs/design.md, "Intent and outcome"), on a fake clock. For tests only.
//
// Thread-safety: not thread-safe; one test thread drives it.
#pragma once

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "common/clock.h"
#include "gtest/gtest.h"
#include "projections/credential_projection.h"
#include "service/bus/target_command_bus.h"
#include "service/bus/report_command_bus.h"
#include "service/decide/target_commands.h"
#include "store/event_store.h"
#include "store/sqlite_event_store.h"
#include "test/support/temp_dir.h"

namespace credledger::testing {

class FleetDriver {
 public:
  // `store` and `clock` are not owned and must outlive the driver.
  FleetDriver(store::EventStore* store, common::FakeClock* clock);

  // Records ServiceConfigured for credentials on or off (as a restart with changed flags).
  absl::Status SetCredentialsEnabled(bool enabled);

  // Runs one command for Target `ns`/`name` with a fresh request id, one second after the
  // previous one. Client commands run as "alice", outcome commands as "credledger".
  absl::StatusOr<service::CommandResult> Do(const std::string& ns, const std::string& name,
                                            const service::TargetCommand& command);

  // Runs one report command for Target `ns`/`name` (RecordLiveness: for stream `liveness`)
  // through ReportCommandBus with a fresh request id, one second after the previous command.
  // SetBoundReleases runs as "alice", the others as "credledger" (the TargetReport watch and
  // the scheduler).
  absl::StatusOr<service::ReportCommandResult> DoReport(const std::string& ns,
                                                        const std::string& name,
                                                        const service::ReportCommand& command);

  // Plays the bridge for one Target until nothing is left to do: deletes released Secrets,
  // creates and issues the Secret of an open attempt (failing the TokenRequest once when
  // `fail_token_request_once`), finalizes a deleted Target, and asks PlanCredential.
  absl::Status Reconcile(const std::string& ns, const std::string& name,
                         bool fail_token_request_once = false);

  // The Target's state folded from its stream.
  absl::StatusOr<v1::TargetState> State(const std::string& ns, const std::string& name);

  // Phase one: three Targets registered and minted, a rotation confirmed, a failed and
  // retried rotation-due mint, a revoke and lift, credentials disabled and re-enabled with a
  // Target registered meanwhile, and an external deletion of a current Secret.
  absl::Status RunPhaseOne();
  // Phase two: a Target deleted, finalized and registered again with a new uid; a Target
  // deleted while a mint is in flight (its Secret appears afterwards); more rotations.
  absl::Status RunPhaseTwo();
  // Phase three: a few more client commands without configuration changes.
  absl::Status RunPhaseThree();

  const v1::ServiceConfigured& service() const { return service_; }

 private:
  std::string NewSecretUid();
  // The context of the next command: one second later, a fresh request id, actor "alice"
  // for a client command and "credledger" otherwise.
  service::CommandContext NextContext(const std::string& ns, const std::string& name, bool client);

  store::EventStore* store_;
  common::FakeClock* clock_;
  service::TargetCommandBus bus_;
  service::ReportCommandBus report_bus_;
  v1::ServiceConfigured service_;
  int request_counter_ = 0;
  int uid_counter_ = 0;
};

// A projection folded from seq 1 up to `until_seq` by applying every event in order (no
// snapshots involved).
absl::StatusOr<projections::CredentialProjection> FoldFromSeqOne(store::EventStore& store,
                                                                 int64_t until_seq);

// Every event of `store` in seq order, read page by page.
absl::StatusOr<std::vector<store::RecordedEvent>> ReadAllEvents(store::EventStore& store);

// Fixture of the projection tests: a SQLite log in a temp dir on a fake clock, with a
// FleetDriver writing to it.
class FleetLogTest : public ::testing::Test {
 protected:
  void SetUp() override;
  // Every event of the log, in seq order (an empty list after a reported failure).
  std::vector<store::RecordedEvent> AllEvents();

  TempDir dir_;
  common::FakeClock clock_;
  std::unique_ptr<store::SqliteEventStore> store_;
  std::unique_ptr<FleetDriver> driver_;
};

}  // namespace credledger::testing
