#include "test/projections/fleet_log.h"

#include <algorithm>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "projections/target_state.h"
#include "service/server/service_configuration.h"
#include "test/support/test_event_log.h"

namespace credledger::testing {
namespace {

using service::CommandResult;
namespace svc = service;

constexpr char kA[] = "fleet-a";
constexpr char kB[] = "fleet-b";
constexpr absl::Duration kTokenLifetime = absl::Hours(1);

bool IsOutcome(const svc::TargetCommand& command) {
  return std::holds_alternative<svc::RecordIdentityWritten>(command) ||
         std::holds_alternative<svc::RecordStaleCredentialsDeleted>(command) ||
         std::holds_alternative<svc::RecordSecretCreated>(command) ||
         std::holds_alternative<svc::RecordCredentialIssued>(command) ||
         std::holds_alternative<svc::RecordMintFailed>(command) ||
         std::holds_alternative<svc::RecordSecretDeleted>(command) ||
         std::holds_alternative<svc::RecordSecretDeletedExternally>(command) ||
         std::holds_alternative<svc::RecordTargetFinalized>(command);
}

std::string Revision(const v1::ServiceConfigured& service, const std::string& tag) {
  return absl::StrCat("1.0.0-", service.connection_hash(), "-", tag);
}

}  // namespace

FleetDriver::FleetDriver(store::EventStore* store, common::FakeClock* clock)
    : store_(store),
      clock_(clock),
      bus_(store),
      report_bus_(store, service::ReportBusDecider(&bus_)) {}

absl::Status FleetDriver::SetCredentialsEnabled(bool enabled) {
  v1::ServiceConfigured s;
  if (enabled) {
    const std::string url = "https://agents.example:6443";
    const std::string ca = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    s.set_agent_apiserver_url(url);
    s.set_agent_ca_sha256("5d41402abc4b2a76b9719d911017c592");
    s.set_connection_hash(projections::ConnectionHash(url, ca));
  }
  s.set_agent_token_ttl_seconds(86400);
  s.set_credentials_enabled(enabled);
  clock_->Advance(absl::Seconds(1));
  ASSIGN_OR_RETURN(bool appended, service::RecordServiceConfiguration(*store_, s, "credledger"));
  if (!appended) return absl::InternalError("the configuration did not change");
  service_ = s;
  return absl::OkStatus();
}

absl::StatusOr<CommandResult> FleetDriver::Do(const std::string& ns, const std::string& name,
                                              const svc::TargetCommand& command) {
  return bus_.Execute(command, NextContext(ns, name, /*client=*/!IsOutcome(command)));
}

absl::StatusOr<service::ReportCommandResult> FleetDriver::DoReport(
    const std::string& ns, const std::string& name, const svc::ReportCommand& command) {
  return report_bus_.Execute(
      command,
      NextContext(ns, name, /*client=*/std::holds_alternative<svc::SetBoundReleases>(command)));
}

svc::CommandContext FleetDriver::NextContext(const std::string& ns, const std::string& name,
                                             bool client) {
  clock_->Advance(absl::Seconds(1));
  return svc::CommandContext{ns,
                             name,
                             clock_->Now(),
                             client ? "alice" : "credledger",
                             absl::StrCat("req-", ++request_counter_),
                             service_};
}

absl::StatusOr<v1::TargetState> FleetDriver::State(const std::string& ns,
                                                   const std::string& name) {
  return bus_.LoadState({.target_namespace = ns, .target_name = name, .service = service_});
}

std::string FleetDriver::NewSecretUid() {
  std::string tail = absl::StrCat(++uid_counter_);
  return absl::StrCat("5ec7e700-0000-4000-8000-", std::string(12 - tail.size(), '0'), tail);
}

absl::Status FleetDriver::Reconcile(const std::string& ns, const std::string& name,
                                    bool fail_token_request_once) {
  for (int round = 0; round < 20; ++round) {
    ASSIGN_OR_RETURN(v1::TargetState state, State(ns, name));
    if (state.phase() == v1::TargetState::PHASE_UNSPECIFIED ||
        state.phase() == v1::TargetState::PHASE_FINALIZED) {
      return absl::OkStatus();
    }
    bool deleted = false;
    for (const v1::CredentialRecord& c : state.credentials()) {
      if (c.phase() != v1::CredentialRecord::PHASE_RELEASED) continue;
      RETURN_IF_ERROR(Do(ns, name, svc::RecordSecretDeleted{c.secret(), c.release_reason()})
                          .status());
      deleted = true;
    }
    if (deleted) continue;
    if (state.has_open_attempt()) {
      const v1::MintAttempt& attempt = state.open_attempt();
      if (!attempt.has_secret()) {
        int64_t suffix = 0;
        for (const v1::CredentialRecord& c : state.credentials()) {
          suffix = std::max(suffix, c.suffix());
        }
        v1::SecretRef secret;
        secret.set_name(absl::StrCat("solar-agent-", name, "-", suffix + 1));
        secret.set_uid(NewSecretUid());
        RETURN_IF_ERROR(
            Do(ns, name, svc::RecordSecretCreated{attempt.attempt_id(), secret, suffix + 1})
                .status());
      } else if (fail_token_request_once) {
        fail_token_request_once = false;
        RETURN_IF_ERROR(Do(ns, name,
                           svc::RecordMintFailed{attempt.attempt_id(),
                                                 v1::MINT_STAGE_TOKEN_REQUEST,
                                                 "tokenrequests is forbidden", attempt.secret()})
                            .status());
      } else {
        const absl::Time answered = clock_->Now();
        RETURN_IF_ERROR(
            Do(ns, name,
               svc::RecordCredentialIssued{attempt.attempt_id(), attempt.secret(),
                                           absl::StrCat("f00d", attempt.secret().uid().substr(28)),
                                           answered, answered + kTokenLifetime, false})
                .status());
      }
      continue;
    }
    if (state.phase() == v1::TargetState::PHASE_DELETING) {
      RETURN_IF_ERROR(
          Do(ns, name,
             svc::RecordTargetFinalized{{absl::StrCat("RoleBinding/solar-agent-", name),
                                         absl::StrCat("Role/solar-agent-", name),
                                         absl::StrCat("ServiceAccount/solar-agent-", name),
                                         absl::StrCat("TargetReport/", name)}})
              .status());
      continue;
    }
    ASSIGN_OR_RETURN(CommandResult planned, Do(ns, name, svc::PlanCredential{}));
    if (planned.events.empty()) return absl::OkStatus();
  }
  return absl::InternalError(absl::StrCat("target ", ns, "/", name, " did not settle"));
}

absl::Status FleetDriver::RunPhaseOne() {
  RETURN_IF_ERROR(SetCredentialsEnabled(true));
  RETURN_IF_ERROR(
      Do(kA, "edge-1", svc::RegisterTarget{"11111111-1111-4111-8111-111111111111", true})
          .status());
  RETURN_IF_ERROR(
      Do(kA, "edge-2", svc::RegisterTarget{"22222222-2222-4222-8222-222222222222", true})
          .status());
  RETURN_IF_ERROR(
      Do(kB, "edge-3", svc::RegisterTarget{"33333333-3333-4333-8333-333333333333", true})
          .status());
  RETURN_IF_ERROR(Do(kA, "edge-1", svc::RecordIdentityWritten{
                                       {"created ServiceAccount/solar-agent-edge-1",
                                        "created Role/solar-agent-edge-1",
                                        "created RoleBinding/solar-agent-edge-1",
                                        "created TargetReport/edge-1"}})
                      .status());
  for (const auto& [ns, name] : std::vector<std::pair<std::string, std::string>>{
           {kA, "edge-1"}, {kA, "edge-2"}, {kB, "edge-3"}}) {
    RETURN_IF_ERROR(Reconcile(ns, name));
  }

  // edge-1: a requested rotation, rolled out and confirmed; the old Secret is deleted.
  RETURN_IF_ERROR(Do(kA, "edge-1", svc::RequestRotation{"2026-01-01"}).status());
  RETURN_IF_ERROR(Reconcile(kA, "edge-1"));
  ASSIGN_OR_RETURN(v1::TargetState edge1, State(kA, "edge-1"));
  const v1::CredentialRecord* current = projections::CurrentCredential(edge1);
  if (current == nullptr) return absl::InternalError("edge-1 has no current credential");
  RETURN_IF_ERROR(
      Do(kA, "edge-1", svc::ConfirmRollout{Revision(service_, current->credential_tag())})
          .status());
  RETURN_IF_ERROR(Reconcile(kA, "edge-1"));

  // edge-2: the rotation becomes due, the first TokenRequest fails, the retry succeeds.
  clock_->Advance(absl::Minutes(48));
  RETURN_IF_ERROR(Reconcile(kA, "edge-2", /*fail_token_request_once=*/true));

  // edge-3: revoked (Secrets deleted), then lifted (a fresh credential).
  RETURN_IF_ERROR(Do(kB, "edge-3", svc::Revoke{"laptop lost"}).status());
  RETURN_IF_ERROR(Reconcile(kB, "edge-3"));
  RETURN_IF_ERROR(Do(kB, "edge-3", svc::LiftRevocation{}).status());
  RETURN_IF_ERROR(Reconcile(kB, "edge-3"));

  // Credentials disabled for a while; edge-4 registers meanwhile and mints once re-enabled.
  RETURN_IF_ERROR(SetCredentialsEnabled(false));
  RETURN_IF_ERROR(
      Do(kB, "edge-4", svc::RegisterTarget{"44444444-4444-4444-8444-444444444444", true})
          .status());
  RETURN_IF_ERROR(Reconcile(kB, "edge-4"));
  RETURN_IF_ERROR(SetCredentialsEnabled(true));
  RETURN_IF_ERROR(Reconcile(kB, "edge-4"));

  // edge-1: someone deletes the current Secret with kubectl; it is replaced.
  ASSIGN_OR_RETURN(edge1, State(kA, "edge-1"));
  current = projections::CurrentCredential(edge1);
  if (current == nullptr) return absl::InternalError("edge-1 has no current credential");
  RETURN_IF_ERROR(
      Do(kA, "edge-1", svc::RecordSecretDeletedExternally{current->secret(), clock_->Now()})
          .status());
  return Reconcile(kA, "edge-1");
}

absl::Status FleetDriver::RunPhaseTwo() {
  // edge-2: deleted and finalized, then registered again as a new incarnation.
  RETURN_IF_ERROR(Do(kA, "edge-2", svc::DeleteTarget{}).status());
  RETURN_IF_ERROR(Reconcile(kA, "edge-2"));
  RETURN_IF_ERROR(
      Do(kA, "edge-2", svc::RegisterTarget{"22222222-2222-4222-8222-bbbbbbbbbbbb", true})
          .status());
  RETURN_IF_ERROR(Reconcile(kA, "edge-2"));

  // edge-3: deleted while a rotation mint is in flight; the bridge had already created the
  // attempt's Secret and reports it afterwards.
  RETURN_IF_ERROR(Do(kB, "edge-3", svc::RequestRotation{"r2"}).status());
  ASSIGN_OR_RETURN(v1::TargetState edge3, State(kB, "edge-3"));
  const std::string abandoned = edge3.open_attempt().attempt_id();
  RETURN_IF_ERROR(Do(kB, "edge-3", svc::DeleteTarget{}).status());
  v1::SecretRef late;
  late.set_name("solar-agent-edge-3-9");
  late.set_uid(NewSecretUid());
  RETURN_IF_ERROR(Do(kB, "edge-3", svc::RecordSecretCreated{abandoned, late, 9}).status());
  RETURN_IF_ERROR(Reconcile(kB, "edge-3"));

  // edge-1: another rotation; an older tag confirms nothing, the current one releases.
  ASSIGN_OR_RETURN(v1::TargetState edge1, State(kA, "edge-1"));
  const std::string old_tag = projections::CurrentCredential(edge1)->credential_tag();
  RETURN_IF_ERROR(Do(kA, "edge-1", svc::RequestRotation{"r3"}).status());
  RETURN_IF_ERROR(Reconcile(kA, "edge-1"));
  RETURN_IF_ERROR(Do(kA, "edge-1", svc::ConfirmRollout{Revision(service_, old_tag)}).status());
  ASSIGN_OR_RETURN(edge1, State(kA, "edge-1"));
  RETURN_IF_ERROR(
      Do(kA, "edge-1",
         svc::ConfirmRollout{
             Revision(service_, projections::CurrentCredential(edge1)->credential_tag())})
          .status());
  return Reconcile(kA, "edge-1");
}

absl::Status FleetDriver::RunPhaseThree() {
  RETURN_IF_ERROR(Do(kB, "edge-4", svc::RequestRotation{"r4"}).status());
  RETURN_IF_ERROR(Reconcile(kB, "edge-4"));
  RETURN_IF_ERROR(Do(kA, "edge-2", svc::Revoke{"decommissioned"}).status());
  return Reconcile(kA, "edge-2");
}

absl::StatusOr<projections::CredentialProjection> FoldFromSeqOne(store::EventStore& store,
                                                                 int64_t until_seq) {
  projections::CredentialProjection projection;
  while (projection.seq() < until_seq) {
    ASSIGN_OR_RETURN(auto page, store.ReadAll(projection.seq(), 100));
    if (page.empty()) return absl::OutOfRangeError(absl::StrCat("no event after ", until_seq));
    for (const store::RecordedEvent& e : page) {
      if (e.seq > until_seq) break;
      RETURN_IF_ERROR(projection.Apply(e).status());
    }
  }
  return projection;
}

absl::StatusOr<std::vector<store::RecordedEvent>> ReadAllEvents(store::EventStore& store) {
  std::vector<store::RecordedEvent> all;
  while (true) {
    ASSIGN_OR_RETURN(auto page, store.ReadAll(all.empty() ? 0 : all.back().seq, 100));
    if (page.empty()) return all;
    all.insert(all.end(), page.begin(), page.end());
  }
}

void FleetLogTest::SetUp() {
  absl::StatusOr<std::unique_ptr<store::SqliteEventStore>> opened =
      OpenTestEventLog(dir_.path(), &clock_);
  ASSERT_TRUE(opened.ok()) << opened.status();
  store_ = *std::move(opened);
  driver_ = std::make_unique<FleetDriver>(store_.get(), &clock_);
}

std::vector<store::RecordedEvent> FleetLogTest::AllEvents() {
  absl::StatusOr<std::vector<store::RecordedEvent>> all = ReadAllEvents(*store_);
  EXPECT_TRUE(all.ok()) << all.status();
  return all.ok() ? *std::move(all) : std::vector<store::RecordedEvent>();
}

}  // namespace credledger::testing
