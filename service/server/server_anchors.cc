// Server::OpenWitness, CheckAnchors and RecordAdoption: what anchors the log of `credledger serve`
// at start-up (docs/audit.md, "Start-up check", "Witnesses" and "Adopting a log"): a recent
// checkpoint of a trusted key, agreement with the witness, or an adoption recorded as
// LogAdopted.
#include <pwd.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "audit/file_witness.h"
#include "audit/log_anchors.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "service/bus/audit_command_bus.h"
#include "service/decide/validation.h"
#include "service/server/configmap_witness.h"
#include "service/server/server.h"
#include "service/server/server_components.h"
#include "store/log_hash.h"

namespace credledger::service {
namespace {

// The name of the operating system user the service runs as; "uid:<n>" when it has none.
std::string OperatingSystemUser() {
  const uid_t uid = geteuid();
  if (const passwd* entry = getpwuid(uid); entry != nullptr && entry->pw_name != nullptr) {
    return entry->pw_name;
  }
  return absl::StrCat("uid:", uid);
}

}  // namespace

absl::Status Server::OpenWitness() {
  if (options_.audit.witness.empty()) return absl::OkStatus();
  ASSIGN_OR_RETURN(audit::WitnessSpec spec,
                   audit::ParseWitnessSpec("--witness", options_.audit.witness));
  if (spec.kind == audit::WitnessSpec::Kind::kFile) {
    audit_->witness = std::make_unique<audit::FileWitness>(spec.path, spec.text);
    return absl::OkStatus();
  }
  if (!bridge_->home_connection.has_value()) {
    return absl::FailedPreconditionError(
        absl::StrCat("--witness ", spec.text,
                     ": needs a cluster connection (--kubeconfig, KUBECONFIG or in-cluster)"));
  }
  kubebridge::KubeClientOptions client_options;
  client_options.rate_limit = {.qps = 0, .burst = 1};
  client_options.on_request = operations_->kube_requests;
  ASSIGN_OR_RETURN(audit_->witness_client,
                   kubebridge::KubeClient::New(*bridge_->home_connection, client_options));
  audit_->witness =
      std::make_unique<ConfigMapWitness>(audit_->witness_client.get(), std::move(spec));
  return absl::OkStatus();
}

absl::Status Server::CheckAnchors() {
  // An unkeyed service signs nothing, so nothing anchors its log (a warning at start-up).
  if (!audit_->signing_key.has_value()) return absl::OkStatus();
  store::EventStore& store = *log_->store;
  std::vector<std::string> refusals;
  const int64_t max_unsigned =
      options_.audit.checkpoints.every_events + store::SqliteEventStoreOptions().max_batch_commands;
  ASSIGN_OR_RETURN(audit::CheckpointAge age,
                   audit::CheckCheckpointAge(store, audit_->trusted_keys, max_unsigned));
  if (!age.refusal.empty()) refusals.push_back(age.refusal);
  int64_t witnessed_seq = 0;
  if (audit_->witness != nullptr && !options_.log.read_only) {
    ASSIGN_OR_RETURN(std::vector<v1::Checkpoint> witnessed, audit_->witness->Read());
    if (!witnessed.empty()) witnessed_seq = witnessed.back().seq();
    ASSIGN_OR_RETURN(
        std::optional<audit::Problem> problem,
        audit::CheckWitnessed(store, audit_->trusted_keys, witnessed, audit_->witness->name()));
    if (problem.has_value()) refusals.push_back(problem->detail);
  }
  if (refusals.empty()) {
    if (options_.audit.adopt_log) {
      common::Log(common::LogLevel::kWarning,
                  "--adopt-log: the start-up checks accept the log; nothing adopted or recorded");
    }
    return absl::OkStatus();
  }
  const std::string what =
      absl::StrCat("the event log is not anchored: ", absl::StrJoin(refusals, "; "));
  if (options_.log.read_only) {
    // The key must not vouch for a log nothing anchors: exports carry no signature.
    audit_->signing_key.reset();
    common::Log(common::LogLevel::kError,
                absl::StrCat(what, " (serving read-only; exports are not signed)"));
    return absl::OkStatus();
  }
  if (!options_.audit.adopt_log) {
    return absl::FailedPreconditionError(absl::StrCat(
        what, "; refusing to start. Investigate with `credledger verify ",
        options_.log.location().Describe(),
        " --public-key <key>`. If this log is the right one (restored from a backup, a key or "
        "witness added), start once with --adopt-log --reason \"...\": the adoption is "
        "recorded in the log (docs/audit.md, \"Adopting a log\")"));
  }
  return RecordAdoption(refusals, age, witnessed_seq);
}

absl::Status Server::RecordAdoption(const std::vector<std::string>& refusals,
                                    const audit::CheckpointAge& age, int64_t witnessed_seq) {
  v1::LogAdopted adoption;
  adoption.set_reason(options_.audit.adopt_reason);
  adoption.set_adopted_by(options_.audit.adopted_by.empty() ? OperatingSystemUser()
                                                            : options_.audit.adopted_by);
  for (const std::string& refusal : refusals) adoption.add_refusals(refusal);
  adoption.set_head_seq(age.head_seq);
  adoption.set_head_chain_hash(age.head_chain_hash.empty() ? store::ZeroHash()
                                                           : age.head_chain_hash);
  adoption.set_trusted_checkpoint_seq(age.trusted.has_value() ? age.trusted->seq() : 0);
  if (audit_->witness != nullptr) {
    adoption.set_witness(audit_->witness->name());
    adoption.set_witnessed_seq(witnessed_seq);
  }
  AuditCommandBus bus(log_->store.get());
  ASSIGN_OR_RETURN(AuditCommandBus::Result result,
                   bus.Execute(AdoptLog{adoption}, AuditCommandContext{kServiceActor}));
  common::Log(
      common::LogLevel::kWarning, "log adopted: signing it from here on",
      {{"adopted_by", adoption.adopted_by()},
       {"reason", adoption.reason()},
       {"head_seq", absl::StrCat(age.head_seq)},
       {"recorded_at_seq", absl::StrCat(result.events.empty() ? 0 : result.events.back().seq)},
       {"refusals", absl::StrJoin(refusals, "; ")}});
  return absl::OkStatus();
}

}  // namespace credledger::service
