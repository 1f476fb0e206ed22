// Server::LoadSigningKey, VerifyTail, StartCheckpoints and StopCheckpoints: the audit side of
// `credledger serve`: the signing key, the start-up check of the log's tail and the
// checkpoint writer (docs/audit.md, "Keys", "Checkpoints" and "Start-up check").
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "audit/log_verifier.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "service/server/server.h"
#include "service/server/server_components.h"

namespace credledger::service {

absl::Status Server::LoadSigningKey() {
  if (options_.audit.signing_key.empty()) {
    common::Log(common::LogLevel::kWarning,
                "no --signing-key: checkpoints are not signed and exports will not verify "
                "(create a key pair with `credledger keygen`)");
    return absl::OkStatus();
  }
  absl::StatusOr<audit::SigningKey> key = audit::SigningKey::LoadFile(options_.audit.signing_key);
  if (!key.ok()) {
    return absl::Status(key.status().code(),
                        absl::StrCat("--signing-key: ", key.status().message()));
  }
  audit_->signing_key = *std::move(key);
  audit_->trusted_keys.Add(audit_->signing_key->public_key());
  for (const std::filesystem::path& path : options_.audit.trusted_public_keys) {
    absl::StatusOr<audit::PublicKey> trusted = audit::PublicKey::LoadFile(path);
    if (!trusted.ok()) {
      return absl::Status(trusted.status().code(),
                          absl::StrCat("--trusted-public-key: ", trusted.status().message()));
    }
    audit_->trusted_keys.Add(*trusted);
  }
  common::Log(common::LogLevel::kInfo, "signing checkpoints and export trailers",
              {{"key_id", audit_->signing_key->key_id()},
               {"trusted_key_ids", audit_->trusted_keys.KeyIds()}});
  return absl::OkStatus();
}

absl::Status Server::VerifyTail() {
  std::optional<audit::SigningKey>& signing_key = audit_->signing_key;
  // The signature of the newest checkpoint is checked when a trusted key made it; one by
  // another key does not anchor the log, which CheckAnchors refuses (its chain hash is still
  // checked here).
  const audit::KeyRing* keys = nullptr;
  if (signing_key.has_value()) {
    ASSIGN_OR_RETURN(std::optional<v1::Checkpoint> newest, log_->store->LatestCheckpoint());
    if (!newest.has_value() || audit_->trusted_keys.Find(newest->key_id()) != nullptr) {
      keys = &audit_->trusted_keys;
    }
  }
  ASSIGN_OR_RETURN(audit::Verdict verdict,
                   audit::VerifyLogTail(*log_->store, options_.log.startup_verify_events, keys));
  if (verdict.ok()) return absl::OkStatus();
  const audit::Problem& problem = *verdict.problem;
  const std::string what = absl::StrCat(
      "the event log does not verify", problem.seq > 0 ? absl::StrCat(" at seq ", problem.seq) : "",
      ": ", problem.kind, ": ", problem.detail);
  if (options_.log.read_only) {
    // The key must not vouch for a log known to be altered: exports carry no signature.
    signing_key.reset();
    common::Log(common::LogLevel::kError,
                absl::StrCat(what, " (serving read-only; exports are not signed)"));
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(absl::StrCat(
      what, "; refusing to start. Investigate with `credledger verify ",
      options_.log.location().Describe(), " --public-key <key>`, or serve it with --read-only"));
}

absl::Status Server::StartCheckpoints() {
  if (!audit_->signing_key.has_value() || options_.log.read_only) return absl::OkStatus();
  audit_->checkpoint_writer = std::make_unique<CheckpointWriter>(
      log_->store.get(), &*audit_->signing_key, options_.clock, options_.audit.checkpoints,
      CheckpointWitness{audit_->witness.get(), options_.audit.witness_interval});
  return audit_->checkpoint_writer->Start();
}

void Server::StopCheckpoints() {
  if (audit_->checkpoint_writer != nullptr) audit_->checkpoint_writer->Stop();
  audit_->checkpoint_writer.reset();
}

}  // namespace credledger::service
