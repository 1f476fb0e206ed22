#include "test/bench/audit_fleet_log.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "audit/signed_records.h"
#include "audit/snapshot_seal.h"
#include "common/sha256.h"
#include "common/status_macros.h"
#include "kubebridge/model/outcomes.h"
#include "projections/credential_projection.h"
#include "projections/proto_time.h"
#include "projections/report_streams.h"
#include "projections/status_projection.h"
#include "projections/target_state.h"
#include "service/bus/prior_request.h"
#include "service/decide/report_decider.h"
#include "service/decide/target_decider.h"
#include "service/server/service_configuration.h"
#include "store/event_codec.h"

namespace credledger::bench {
namespace {

using projections::ToProto;

constexpr int64_t kEventsPerTarget = 50;
constexpr int64_t kNamespaces = 20;
// Steps appended in one store transaction.
constexpr size_t kStepsPerCommit = 2000;
// Fleet time between two commands: 20 commands a second.
constexpr absl::Duration kStepInterval = absl::Milliseconds(50);
constexpr absl::Duration kTokenLifetime = absl::Hours(24);
constexpr int64_t kRotationEveryRounds = 12;
constexpr int64_t kRevokeRound = 20;
constexpr int64_t kLiftAfterRounds = 3;
// One Target in this many fails its first TokenRequest; another one in as many is revoked.
constexpr int64_t kVariantEvery = 50;
constexpr size_t kMaxHeartbeatsPerBatch = 500;
const absl::Time kStart = absl::FromUnixSeconds(1767225600);  // 2026-01-01T00:00:00Z

constexpr char kClientActor[] = "platform-api";
constexpr char kServiceActor[] = "credledger";
constexpr char kApiServerUrl[] = "https://agents.example:6443";
constexpr char kCaBundle[] = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

struct Slot {
  int64_t index = 0;
  std::string target_namespace;
  std::string name;
  std::string uid;
  bool fails_first_mint = false;
  bool revoked_once = false;
  bool identity_written = false;
  bool bound_releases_set = false;
  bool failed = false;
  int64_t revoked_round = -1;
  int64_t next_suffix = 1;
  int64_t reports = 0;
  int64_t outcomes = 0;
};

// One command's append, decided against the state its Target had before the transaction.
struct Step {
  absl::Time at;
  store::AppendRequest request;
  int64_t events = 0;
  bool report = false;
  const Slot* slot = nullptr;
};

v1::ReportCondition Condition(absl::string_view type, absl::string_view reason,
                              std::string message) {
  v1::ReportCondition c;
  c.set_type(std::string(type));
  c.set_status("True");
  c.set_reason(std::string(reason));
  c.set_message(std::move(message));
  c.set_observed_generation(1);
  *c.mutable_last_transition_time() = ToProto(kStart);
  return c;
}

void AddRelease(v1::TargetReportSpec& report, absl::string_view name, absl::string_view ns,
                const std::string& revision) {
  v1::ReleaseStatus* r = report.add_releases();
  r->set_name(std::string(name));
  r->set_namespace_(std::string(ns));
  r->set_phase(v1::RELEASE_PHASE_READY);
  r->set_revision(revision);
  *r->add_source_conditions() =
      Condition("Ready", "Succeeded",
                absl::StrCat("stored artifact for digest 'sha256:",
                             common::Sha256HexPrefix(absl::StrCat(name, revision), 64), "'"));
  const std::string helm = absl::StrCat("Helm upgrade succeeded for release ", ns, "/", name,
                                        ".v3 with chart ", name, "@", revision);
  *r->add_helm_conditions() = Condition("Ready", "UpgradeSucceeded", helm);
  *r->add_helm_conditions() = Condition("Released", "UpgradeSucceeded", helm);
}

void AddResource(google::protobuf::RepeatedPtrField<v1::ResourceQuantity>* list,
                 absl::string_view resource, std::string quantity) {
  v1::ResourceQuantity* q = list->Add();
  q->set_resource(std::string(resource));
  q->set_quantity(std::move(quantity));
}

// A changed report of `slot` at `at`: three Ready releases (the agent's at `agent_revision`),
// two preflight checks and a capacity whose usage moves with every report.
v1::TargetReportSpec ReportOf(const Slot& slot, absl::Time at, const std::string& agent_revision) {
  v1::TargetReportSpec report;
  *report.mutable_last_report_time() = ToProto(at - absl::Seconds(1));
  AddRelease(report, "cert-manager", "cert-manager", "v1.14.4");
  AddRelease(report, "podinfo", "apps", "6.5.4");
  AddRelease(report, "solar-agent", "solar-system", agent_revision);
  v1::PreflightCheck* k8s = report.add_preflight_checks();
  k8s->set_type("KubernetesVersion");
  k8s->set_status("True");
  k8s->set_reason("Supported");
  k8s->set_message("v1.30.2 is within the supported range v1.28 to v1.31");
  v1::PreflightCheck* flux = report.add_preflight_checks();
  flux->set_type("FluxInstalled");
  flux->set_status("True");
  flux->set_reason("Found");
  flux->set_message("flux v2.3.0 with source-controller and helm-controller");
  v1::ClusterCapacity* capacity = report.mutable_capacity();
  capacity->set_node_count(3);
  AddResource(capacity->mutable_allocatable(), "cpu", "12");
  AddResource(capacity->mutable_allocatable(), "memory", "47Gi");
  AddResource(capacity->mutable_allocatable(), "pods", "330");
  AddResource(capacity->mutable_used(), "cpu",
              absl::StrCat(1000 + (slot.reports * 137 + slot.index * 31) % 9000, "m"));
  AddResource(capacity->mutable_used(), "memory",
              absl::StrCat(8000 + (slot.reports * 211) % 30000, "Mi"));
  AddResource(capacity->mutable_used(), "pods", absl::StrCat(40 + slot.reports % 60));
  return report;
}

std::vector<v1::BoundRelease> BoundReleases() {
  std::vector<v1::BoundRelease> releases(3);
  releases[0].set_name("cert-manager");
  releases[0].set_namespace_("cert-manager");
  releases[1].set_name("podinfo");
  releases[1].set_namespace_("apps");
  releases[2].set_name("solar-agent");
  releases[2].set_namespace_("solar-system");
  return releases;
}

// Bytes the digest of `e` hashes (docs/log-format.md, "digest"): the tag, ten 8-byte length
// prefixes, four 8-byte integers and the variable fields.
int64_t DigestInputBytes(const store::RecordedEvent& e) {
  constexpr int64_t kFixed = 19 /* "credledger/event/v1" */ + 10 * 8 + 4 * 8;
  return kFixed + static_cast<int64_t>(e.stream.size() + e.event_id.size() + e.type.size() +
                                       e.metadata.size() + e.payload.size());
}

class Builder {
 public:
  Builder(store::EventStore& store, common::FakeClock& clock, const audit::SigningKey& key,
          const FleetLogOptions& options)
      : store_(store), clock_(clock), key_(key), options_(options), now_(clock.Now()) {
    const int64_t targets = std::max<int64_t>(2, options.events / kEventsPerTarget);
    for (int64_t i = 0; i < targets; ++i) {
      Slot slot;
      slot.index = i;
      slot.target_namespace = FleetTargetNamespace(i);
      slot.name = FleetTargetName(i);
      slot.uid = absl::StrFormat("7a6e0000-0000-4000-8000-%012x", i);
      slot.fails_first_mint = i % kVariantEvery == 13;
      slot.revoked_once = i % kVariantEvery == 7;
      slots_.push_back(std::move(slot));
    }
    facts_.targets = targets;
  }

  absl::StatusOr<FleetLogFacts> Build() {
    if (store_.HeadSeq() != 0) return absl::FailedPreconditionError("the store is not empty");
    RETURN_IF_ERROR(Configure());
    bool full = false;
    for (int64_t round = 0; !full; ++round) {
      std::vector<Step> batch;
      for (Slot& slot : slots_) {
        ASSIGN_OR_RETURN(Step step, Decide(slot, round));
        if (planned_ + step.events > options_.events) {
          full = true;
          break;
        }
        planned_ += step.events;
        batch.push_back(std::move(step));
        if (batch.size() == kStepsPerCommit) RETURN_IF_ERROR(Commit(batch));
      }
      RETURN_IF_ERROR(Commit(batch));
    }
    std::vector<Step> filler;
    while (planned_ < options_.events) {
      ASSIGN_OR_RETURN(std::optional<Step> step, Liveness({&slots_[0]}));
      if (!step.has_value()) return absl::InternalError("no registered Target to fill with");
      planned_ += step->events;
      filler.push_back(*std::move(step));
    }
    RETURN_IF_ERROR(Commit(filler));
    return facts_;
  }

 private:
  service::CommandContext Context(const Slot* slot, std::string actor, std::string request_id) {
    now_ += kStepInterval;
    return {slot == nullptr ? "" : slot->target_namespace,
            slot == nullptr ? "" : slot->name,
            now_,
            std::move(actor),
            std::move(request_id),
            service_};
  }

  absl::Status Configure() {
    service_.set_agent_apiserver_url(kApiServerUrl);
    service_.set_agent_ca_sha256(common::HexEncode(common::Sha256Of(kCaBundle)));
    service_.set_agent_token_ttl_seconds(absl::ToInt64Seconds(kTokenLifetime));
    service_.set_credentials_enabled(true);
    service_.set_connection_hash(projections::ConnectionHash(kApiServerUrl, kCaBundle));
    RETURN_IF_ERROR(service::RecordServiceConfiguration(store_, service_, kServiceActor).status());
    ASSIGN_OR_RETURN(std::vector<store::RecordedEvent> first, store_.ReadAll(0, 1));
    if (first.size() != 1) return absl::InternalError("ServiceConfigured was not appended");
    planned_ = 1;
    return Fold(first[0]);
  }

  // An append of `streams` (stream, events) by the command `name` in `context`.
  absl::StatusOr<Step> MakeStep(
      const service::CommandContext& context, absl::string_view name,
      const std::vector<std::pair<std::string, std::vector<v1::Event>>>& streams) {
    const v1::EventMetadata metadata =
        service::CommandMetadata(context.actor, context.request_id, context.request_digest, name);
    Step step{context.now, {context.request_id, {}}, 0, false, nullptr};
    for (const auto& [stream, events] : streams) {
      if (events.empty()) continue;
      store::StreamAppend& append = step.request.streams.emplace_back();
      append.stream = stream;
      for (const v1::Event& event : events) {
        ASSIGN_OR_RETURN(append.events.emplace_back(),
                         store::EventCodec::Default().Encode(event, metadata));
        ++step.events;
      }
    }
    return step;
  }

  absl::StatusOr<Step> TargetStep(Slot& slot, const v1::TargetState& state,
                                  const service::TargetCommand& command) {
    const bool client = std::holds_alternative<service::RegisterTarget>(command) ||
                        std::holds_alternative<service::RequestRotation>(command) ||
                        std::holds_alternative<service::Revoke>(command) ||
                        std::holds_alternative<service::LiftRevocation>(command);
    const service::CommandContext context =
        client ? Context(&slot, kClientActor, absl::StrCat("req-", ++client_requests_))
               : Context(&slot, kServiceActor,
                         absl::StrCat(kubebridge::kServiceRequestIdPrefix, "bridge/", slot.uid, "/",
                                      ++slot.outcomes));
    ASSIGN_OR_RETURN(std::vector<v1::Event> events, service::DecideTarget(command, state, context));
    ASSIGN_OR_RETURN(Step step,
                     MakeStep(context, service::CommandName(command),
                              {{projections::TargetStream(slot.target_namespace, slot.name),
                                std::move(events)}}));
    step.slot = &slot;
    return step;
  }

  absl::StatusOr<Step> ReportStep(Slot& slot, const v1::TargetState& state,
                                  const service::ReportCommand& command,
                                  const service::CommandContext& context) {
    const v1::TargetStatus status =
        statuses_.Get(slot.target_namespace, slot.name).value_or(v1::TargetStatus());
    ASSIGN_OR_RETURN(service::ReportDecision decision,
                     service::DecideReport(command, state, status, context));
    ASSIGN_OR_RETURN(Step step,
                     MakeStep(context, service::CommandName(command),
                              {{projections::ReportStream(slot.target_namespace, slot.name),
                                std::move(decision.report_events)},
                               {projections::TargetStream(slot.target_namespace, slot.name),
                                std::move(decision.target_events)}}));
    step.slot = &slot;
    step.report = std::holds_alternative<service::SubmitReport>(command);
    return step;
  }

  absl::StatusOr<Step> SubmitReport(Slot& slot, const v1::TargetState& state) {
    const v1::CredentialRecord* current = projections::CurrentCredential(state);
    const std::string agent_revision =
        current == nullptr
            ? "0.9.0"
            : absl::StrCat("1.0.0-", service_.connection_hash(), "-", current->credential_tag());
    ++slot.reports;
    const service::CommandContext context =
        Context(&slot, absl::StrCat("agent:", slot.target_namespace, "/", slot.name),
                absl::StrCat("report-", slot.uid, "-", slot.reports));
    return ReportStep(slot, state,
                      service::SubmitReport{ReportOf(slot, context.now, agent_revision),
                                            context.now, std::nullopt},
                      context);
  }

  // The next step of `slot`'s life in round `round` (the file comment of the header).
  absl::StatusOr<Step> Decide(Slot& slot, int64_t round) {
    const v1::TargetState state =
        credentials_.Get(slot.target_namespace, slot.name).value_or(v1::TargetState());
    if (state.phase() == v1::TargetState::PHASE_UNSPECIFIED) {
      return TargetStep(slot, state, service::RegisterTarget{slot.uid, true});
    }
    if (!slot.identity_written) {
      slot.identity_written = true;
      const std::string object = absl::StrCat("solar-agent-", slot.name);
      return TargetStep(
          slot, state,
          service::RecordIdentityWritten{{absl::StrCat("created ServiceAccount/", object),
                                          absl::StrCat("created Role/", object),
                                          absl::StrCat("created RoleBinding/", object),
                                          absl::StrCat("created TargetReport/", slot.name)}});
    }
    for (const v1::CredentialRecord& c : state.credentials()) {
      if (c.phase() != v1::CredentialRecord::PHASE_RELEASED) continue;
      return TargetStep(slot, state, service::RecordSecretDeleted{c.secret(), c.release_reason()});
    }
    if (state.has_open_attempt()) return MintStep(slot, state);
    if (!slot.bound_releases_set) {
      slot.bound_releases_set = true;
      const service::CommandContext context =
          Context(&slot, kClientActor, absl::StrCat("req-", ++client_requests_));
      return ReportStep(slot, state, service::SetBoundReleases{BoundReleases(), "2026.1.0"},
                        context);
    }
    if (slot.revoked_once && slot.revoked_round < 0 && round >= kRevokeRound) {
      slot.revoked_round = round;
      return TargetStep(slot, state, service::Revoke{"device reported lost"});
    }
    if (state.revoked()) {
      if (round >= slot.revoked_round + kLiftAfterRounds) {
        return TargetStep(slot, state, service::LiftRevocation{});
      }
      return SubmitReport(slot, state);
    }
    const v1::CredentialRecord* current = projections::CurrentCredential(state);
    if (current == nullptr) {
      ASSIGN_OR_RETURN(Step planned, TargetStep(slot, state, service::PlanCredential{}));
      if (planned.events > 0) return planned;  // else the retry delay has not passed yet
    } else if ((round + slot.index) % kRotationEveryRounds == 0) {
      return TargetStep(slot, state, service::RequestRotation{absl::StrCat("rotate-", round)});
    }
    return SubmitReport(slot, state);
  }

  // The bridge's next step of the open attempt: the Secret, then the token (or, once for
  // some Targets, a refused TokenRequest). The TokenRequest answered at the previous step's
  // time.
  absl::StatusOr<Step> MintStep(Slot& slot, const v1::TargetState& state) {
    const v1::MintAttempt& attempt = state.open_attempt();
    if (!attempt.has_secret()) {
      v1::SecretRef secret;
      secret.set_name(absl::StrCat("solar-agent-", slot.name, "-", slot.next_suffix));
      secret.set_uid(absl::StrFormat("5ec7e700-0000-4000-8000-%012x", ++secrets_));
      return TargetStep(
          slot, state,
          service::RecordSecretCreated{attempt.attempt_id(), secret, slot.next_suffix++});
    }
    if (slot.fails_first_mint && !slot.failed) {
      slot.failed = true;
      return TargetStep(
          slot, state,
          service::RecordMintFailed{attempt.attempt_id(), v1::MINT_STAGE_TOKEN_REQUEST,
                                    "tokenrequests.authentication.k8s.io is "
                                    "forbidden",
                                    attempt.secret()});
    }
    return TargetStep(
        slot, state,
        service::RecordCredentialIssued{
            attempt.attempt_id(), attempt.secret(),
            common::Sha256HexPrefix(absl::StrCat("token:", attempt.secret().uid()), 16), now_,
            now_ + kTokenLifetime, false});
  }

  // A LivenessObserved batch of `slots`' heartbeats; nullopt when none of them is registered.
  absl::StatusOr<std::optional<Step>> Liveness(const std::vector<const Slot*>& slots) {
    const service::CommandContext context =
        Context(nullptr, kServiceActor,
                absl::StrCat(kubebridge::kServiceRequestIdPrefix, "liveness/", ++liveness_));
    service::RecordLiveness command;
    std::vector<v1::TargetState> states;
    for (const Slot* slot : slots) {
      v1::LivenessEntry& entry = command.entries.emplace_back();
      entry.set_namespace_(slot->target_namespace);
      entry.set_name(slot->name);
      entry.set_target_uid(slot->uid);
      *entry.mutable_received_at() = ToProto(context.now);
      *entry.mutable_last_report_time() = ToProto(context.now - absl::Seconds(1));
      states.push_back(
          credentials_.Get(slot->target_namespace, slot->name).value_or(v1::TargetState()));
    }
    std::vector<v1::Event> events = service::DecideLiveness(command, states);
    if (events.empty()) return std::optional<Step>();
    ASSIGN_OR_RETURN(Step step, MakeStep(context, service::CommandName(command),
                                         {{projections::kLivenessStream, std::move(events)}}));
    return std::optional<Step>(std::move(step));
  }

  // Appends `batch` (emptied), plus the heartbeats of the Targets that sent no report in it
  // while the log has room, in one transaction that also stores the checkpoints due; then
  // folds the new events.
  absl::Status Commit(std::vector<Step>& batch) {
    if (batch.empty()) return absl::OkStatus();
    std::vector<const Slot*> heartbeats;
    for (const Step& step : batch) {
      if (!step.report && step.slot != nullptr && heartbeats.size() < kMaxHeartbeatsPerBatch) {
        heartbeats.push_back(step.slot);
      }
    }
    if (!heartbeats.empty() && planned_ < options_.events) {
      ASSIGN_OR_RETURN(std::optional<Step> liveness, Liveness(heartbeats));
      if (liveness.has_value()) {
        planned_ += liveness->events;
        batch.push_back(*std::move(liveness));
      }
    }
    std::vector<store::RecordedEvent> appended;
    RETURN_IF_ERROR(store_.Execute([&](store::WriteTransaction& tx) -> absl::Status {
      for (const Step& step : batch) {
        clock_.Set(step.at);
        ASSIGN_OR_RETURN(store::AppendResult result, tx.Append(step.request));
        if (result.replayed) {
          return absl::InternalError(
              absl::StrCat("request id ", step.request.request_id, " was used twice"));
        }
        for (store::RecordedEvent& e : result.events) {
          if (e.seq % options_.checkpoint_every == 0) {
            ASSIGN_OR_RETURN(
                v1::Checkpoint checkpoint,
                audit::SignCheckpoint(key_, e.seq, e.chain_hash, absl::ToUnixMicros(clock_.Now())));
            RETURN_IF_ERROR(tx.PutCheckpoint(checkpoint));
          }
          appended.push_back(std::move(e));
        }
      }
      return absl::OkStatus();
    }));
    batch.clear();
    for (const store::RecordedEvent& e : appended) RETURN_IF_ERROR(Fold(e));
    return absl::OkStatus();
  }

  absl::Status Fold(const store::RecordedEvent& e) {
    RETURN_IF_ERROR(credentials_.Apply(e).status());
    RETURN_IF_ERROR(statuses_.Apply(e).status());
    ++facts_.events;
    facts_.digest_input_bytes += DigestInputBytes(e);
    ++facts_.events_by_type[e.type];
    if (e.seq % options_.checkpoint_every == 0) ++facts_.checkpoints;
    if (e.seq % options_.snapshot_every != 0) return absl::OkStatus();
    std::string credentials = credentials_.Serialize();
    std::string statuses = statuses_.Serialize();
    facts_.newest_snapshot_bytes = static_cast<int64_t>(credentials.size() + statuses.size());
    for (store::Snapshot snapshot :
         {store::Snapshot{.projection = projections::kCredentialProjectionName,
         .seq = e.seq,
         .schema_version = projections::kCredentialProjectionVersion,
         .state = std::move(credentials)},
          store::Snapshot{.projection = projections::kStatusProjectionName,
          .seq = e.seq,
          .schema_version = projections::kStatusProjectionVersion,
          .state = std::move(statuses)}}) {
      RETURN_IF_ERROR(audit::SealSnapshot(key_, e.chain_hash, snapshot));
      RETURN_IF_ERROR(store_.SaveSnapshot(std::move(snapshot)));
    }
    facts_.snapshots += 2;
    return absl::OkStatus();
  }

  store::EventStore& store_;
  common::FakeClock& clock_;
  const audit::SigningKey& key_;
  const FleetLogOptions options_;
  absl::Time now_;
  v1::ServiceConfigured service_;
  std::vector<Slot> slots_;
  projections::CredentialProjection credentials_;
  projections::StatusProjection statuses_;
  // Events appended or in the batch being assembled.
  int64_t planned_ = 0;
  int64_t client_requests_ = 0;
  int64_t secrets_ = 0;
  int64_t liveness_ = 0;
  FleetLogFacts facts_;
};

}  // namespace

std::string FleetTargetNamespace(int64_t index) {
  return absl::StrCat("fleet-", index % kNamespaces);
}

std::string FleetTargetName(int64_t index) { return absl::StrCat("edge-", index); }

absl::StatusOr<FleetLogFacts> BuildFleetLog(store::EventStore& store, common::FakeClock& clock,
                                            const audit::SigningKey& key,
                                            const FleetLogOptions& options) {
  return Builder(store, clock, key, options).Build();
}

}  // namespace credledger::bench
