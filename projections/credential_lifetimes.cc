#include "projections/credential_lifetimes.h"

#include <algorithm>
#include <iterator>
#include <tuple>

#include "absl/strings/str_split.h"
#include "common/status_macros.h"
#include "projections/proto_time.h"
#include "store/event_codec.h"

namespace credledger::projections {
namespace {

v1::CredentialLifetime StartLifetime(const std::pair<std::string, std::string>& target,
                                     const v1::CredentialIssued& e, int64_t seq) {
  v1::CredentialLifetime lifetime;
  lifetime.set_namespace_(target.first);
  lifetime.set_name(target.second);
  lifetime.set_target_uid(e.target_uid());
  *lifetime.mutable_secret() = e.secret();
  lifetime.set_credential_tag(e.credential_tag());
  lifetime.set_token_fingerprint(e.token_fingerprint());
  *lifetime.mutable_issued_at() = e.issued_at();
  *lifetime.mutable_expires_at() = e.expires_at();
  lifetime.set_issued_seq(seq);
  return lifetime;
}

bool ValidAtTime(const v1::CredentialLifetime& c, absl::Time at) {
  return FromProto(c.issued_at()) <= at && at < FromProto(c.expires_at()) &&
         (!c.has_deleted_at() || at < FromProto(c.deleted_at()));
}

}  // namespace

std::string DeletionReasonWords(v1::SecretDeletionReason reason) {
  switch (reason) {
    case v1::SECRET_DELETION_REASON_SUPERSEDED:
      return "superseded";
    case v1::SECRET_DELETION_REASON_EXPIRED:
      return "expired";
    case v1::SECRET_DELETION_REASON_REVOKED:
      return "revoked";
    case v1::SECRET_DELETION_REASON_TARGET_DELETED:
      return "target deleted";
    case v1::SECRET_DELETION_REASON_MINT_ABANDONED:
      return "mint abandoned";
    default:  // an enum switch: proto3 enums carry sentinel values
      return "unspecified";
  }
}

std::optional<std::pair<std::string, std::string>> TargetOfTargetStream(absl::string_view stream) {
  std::vector<absl::string_view> parts = absl::StrSplit(stream, '/');
  if (parts.size() != 3 || parts[0] != "target") return std::nullopt;
  return std::make_pair(std::string(parts[1]), std::string(parts[2]));
}

absl::Status CredentialLifetimes::Apply(const store::RecordedEvent& recorded) {
  const std::optional<std::pair<std::string, std::string>> target =
      TargetOfTargetStream(recorded.stream);
  if (!target.has_value()) return absl::OkStatus();
  ASSIGN_OR_RETURN(v1::Event event, store::EventCodec::Default().Decode(recorded));
  const absl::Time at = absl::FromUnixMicros(recorded.recorded_at_us);
  switch (event.kind_case()) {
    case v1::Event::KIND_NOT_SET:
    case v1::Event::kServiceConfigured:
    case v1::Event::kTargetRegistered:
    case v1::Event::kTargetDeletionRequested:
    case v1::Event::kRotationRequested:
    case v1::Event::kTargetRevoked:
    case v1::Event::kRevocationLifted:
    case v1::Event::kRolloutConfirmed:
    case v1::Event::kCredentialMintRequested:
    case v1::Event::kCredentialSecretCreated:
    case v1::Event::kCredentialMintFailed:  // a failed mint stored no token
    case v1::Event::kCredentialMintAbandoned:
    case v1::Event::kIdentityObjectsWritten:
    case v1::Event::kReportAccepted:
    case v1::Event::kReportingStale:
    case v1::Event::kReportClockSkewDetected:
    case v1::Event::kReportClockSkewCleared:
    case v1::Event::kBoundReleasesSet:
    case v1::Event::kLivenessObserved:
    case v1::Event::kIdentityCreated:
    case v1::Event::kIdentityUpdated:
    case v1::Event::kIdentityDeleted:
    case v1::Event::kIdentityBound:
    case v1::Event::kIdentityUnbound:
    case v1::Event::kSourceSecretObserved:
    case v1::Event::kNamespaceLabelsObserved:
    case v1::Event::kMirrorWritten:
    case v1::Event::kMirrorDeleted:
    case v1::Event::kMirrorDeletedExternally:
    case v1::Event::kBoundObjectGone:
    case v1::Event::kClusterRegistered:
    case v1::Event::kClusterSpecChanged:
    case v1::Event::kClusterDeregistered:
    case v1::Event::kClusterProbed:
    case v1::Event::kSourceVerified:
    case v1::Event::kCallsDenied:
    case v1::Event::kLogAdopted:
    case v1::Event::kMirrorFailed:
      break;
    case v1::Event::kCredentialIssued: {
      const v1::CredentialIssued& e = event.credential_issued();
      alive_by_secret_uid_[e.secret().uid()].push_back(lifetimes_.size());
      lifetimes_.push_back(StartLifetime(*target, e, recorded.seq));
      break;
    }
    case v1::Event::kCredentialSecretDeleted: {
      const v1::CredentialSecretDeleted& e = event.credential_secret_deleted();
      End(alive_by_secret_uid_.find(e.secret().uid()), at, DeletionReasonWords(e.reason()),
          recorded.seq);
      break;
    }
    case v1::Event::kCredentialSecretDeletedExternally: {
      const v1::CredentialSecretDeletedExternally& e = event.credential_secret_deleted_externally();
      End(alive_by_secret_uid_.find(e.secret().uid()),
          e.has_observed_at() ? FromProto(e.observed_at()) : at, "deleted externally",
          recorded.seq);
      break;
    }
    case v1::Event::kStaleCredentialsDeleted:
      for (const v1::SecretRef& secret : event.stale_credentials_deleted().secrets()) {
        End(alive_by_secret_uid_.find(secret.uid()), at, "stale credential", recorded.seq);
      }
      break;
    case v1::Event::kTargetFinalized: {
      const std::string& uid = event.target_finalized().target_uid();
      for (auto it = alive_by_secret_uid_.begin(); it != alive_by_secret_uid_.end();) {
        const v1::CredentialLifetime& c = lifetimes_[it->second.front()];
        auto next = std::next(it);
        if (c.namespace_() == target->first && c.name() == target->second &&
            c.target_uid() == uid) {
          End(it, at, "target finalized", recorded.seq);
        }
        it = next;
      }
      break;
    }
  }
  return absl::OkStatus();
}

void CredentialLifetimes::End(std::map<std::string, std::vector<size_t>>::iterator alive,
                              absl::Time at, absl::string_view reason, int64_t seq) {
  if (alive == alive_by_secret_uid_.end()) return;
  for (size_t index : alive->second) {
    v1::CredentialLifetime& c = lifetimes_[index];
    *c.mutable_deleted_at() = ToProto(at);
    c.set_deleted_reason(std::string(reason));
    c.set_deleted_seq(seq);
  }
  alive_by_secret_uid_.erase(alive);
}

std::vector<v1::CredentialLifetime> CredentialLifetimes::ValidAt(absl::Time at,
                                                                 absl::string_view target_namespace,
                                                                 absl::string_view name) const {
  std::vector<v1::CredentialLifetime> out;
  for (const v1::CredentialLifetime& c : lifetimes_) {
    if (!target_namespace.empty() && c.namespace_() != target_namespace) continue;
    if (!target_namespace.empty() && !name.empty() && c.name() != name) continue;
    if (ValidAtTime(c, at)) out.push_back(c);
  }
  // lifetimes_ is in issue order, so a stable sort keeps it within each Target.
  std::stable_sort(out.begin(), out.end(),
                   [](const v1::CredentialLifetime& a, const v1::CredentialLifetime& b) {
                     return std::tie(a.namespace_(), a.name()) < std::tie(b.namespace_(), b.name());
                   });
  return out;
}

std::vector<v1::CredentialLifetime> CredentialLifetimes::All() const { return lifetimes_; }

}  // namespace credledger::projections
