#include "projections/identity_summary.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "projections/identity_state.h"
#include "projections/mirror_naming.h"

namespace credledger::projections {
namespace {

std::string Source(absl::string_view digest) {
  return absl::StrCat("source ", ShortSourceDigest(digest));
}

std::string SecretWords(const v1::SourceSecretRef& ref) {
  return absl::StrCat("source Secret ", ref.namespace_(), "/", ref.name());
}

// A selector in kubectl's notation: "env=prod, tier in (a, b), gpu, !legacy"; "{}" when empty.
std::string SelectorWords(const v1::LabelSelector& selector) {
  std::vector<std::string> parts;
  for (const v1::Label& l : selector.match_labels()) {
    parts.push_back(absl::StrCat(l.key(), "=", l.value()));
  }
  for (const v1::LabelSelectorRequirement& r : selector.match_expressions()) {
    const std::string values = absl::StrCat("(", absl::StrJoin(r.values(), ", "), ")");
    if (r.operator_() == "In") {
      parts.push_back(absl::StrCat(r.key(), " in ", values));
    } else if (r.operator_() == "NotIn") {
      parts.push_back(absl::StrCat(r.key(), " notin ", values));
    } else if (r.operator_() == "Exists") {
      parts.push_back(r.key());
    } else if (r.operator_() == "DoesNotExist") {
      parts.push_back(absl::StrCat("!", r.key()));
    } else {
      parts.push_back(absl::StrCat(r.key(), " ", r.operator_(), " ", values));
    }
  }
  return parts.empty() ? "{}" : absl::StrJoin(parts, ", ");
}

std::string AllowedWords(const v1::IdentitySpec& spec) {
  if (!spec.has_allowed_namespaces()) return "allows no namespace";
  const v1::AllowedNamespaces& allowed = spec.allowed_namespaces();
  std::vector<std::string> parts;
  if (!allowed.list().empty()) {
    parts.push_back(absl::StrCat("list ", absl::StrJoin(allowed.list(), ", ")));
  }
  if (allowed.has_selector()) {
    parts.push_back(absl::StrCat("selector ", SelectorWords(allowed.selector())));
  }
  if (parts.empty()) return "allows {}";
  return absl::StrCat("allows ", absl::StrJoin(parts, "; or "));
}

std::string SpecWords(const v1::IdentitySpec& spec) {
  return absl::StrCat(
      SecretWords(spec.secret_ref()), ", ", AllowedWords(spec),
      spec.cluster().empty() ? "" : absl::StrCat(", mirrors in cluster ", spec.cluster()));
}

std::string ReviewWords(const v1::AccessReview& review) {
  std::string who = absl::StrCat("user ", review.user());
  if (!review.groups().empty()) {
    absl::StrAppend(&who, " (groups ", absl::StrJoin(review.groups(), ", "), ")");
  }
  return absl::StrCat("access review: ", who, review.allowed() ? " may" : " may not", " get ",
                      "Secret ", review.secret().namespace_(), "/", review.secret().name());
}

std::string WriteKindWords(const v1::MirrorWritten& e) {
  switch (e.kind()) {
    case v1::MIRROR_WRITE_KIND_CREATED:
      return "created";
    case v1::MIRROR_WRITE_KIND_UPDATED:
      return e.changed().empty() ? "updated"
                                 : absl::StrCat("updated ", absl::StrJoin(e.changed(), ", "));
    case v1::MIRROR_WRITE_KIND_ADOPTED:
      return "adopted as found";
    default:  // an enum switch: proto3 enums carry sentinel values
      return "write kind unspecified";
  }
}

std::string DeletionWords(v1::MirrorDeletionReason reason) {
  switch (reason) {
    case v1::MIRROR_DELETION_REASON_NAMESPACE_NOT_ALLOWED:
      return "namespace no longer allowed";
    case v1::MIRROR_DELETION_REASON_UNBOUND:
      return "last binding removed";
    case v1::MIRROR_DELETION_REASON_BOUND_OBJECTS_GONE:
      return "every bound object gone";
    default:
      return "reason unspecified";
  }
}

std::string FailureWords(v1::MirrorFailureKind kind) {
  switch (kind) {
    case v1::MIRROR_FAILURE_KIND_CONFLICT:
      return "conflict";
    case v1::MIRROR_FAILURE_KIND_SOURCE_COLLISION:
      return "would overwrite the source";
    case v1::MIRROR_FAILURE_KIND_SOURCE_NOT_FOUND:
      return "source not found";
    case v1::MIRROR_FAILURE_KIND_WRITE_FAILED:
      return "write failed";
    case v1::MIRROR_FAILURE_KIND_CLUSTER_UNSUPPORTED:
      return "cluster unsupported";
    case v1::MIRROR_FAILURE_KIND_CLUSTER_UNREACHABLE:
      return "cluster unreachable";
    default:
      return "kind unspecified";
  }
}

std::string AbsenceWords(v1::BoundObjectAbsence absence) {
  switch (absence) {
    case v1::BOUND_OBJECT_ABSENCE_NOT_FOUND:
      return "not found";
    case v1::BOUND_OBJECT_ABSENCE_OTHER_UID:
      return "another object holds its name";
    case v1::BOUND_OBJECT_ABSENCE_KIND_NOT_SERVED:
      return "its kind is not served";
    default:
      return "absence unspecified";
  }
}

std::string LabelsWords(const v1::NamespaceLabelsObserved& e) {
  if (!e.found()) return absl::StrCat("namespace ", e.namespace_(), " observed: not found");
  std::vector<std::string> labels;
  for (const v1::Label& l : e.labels()) labels.push_back(absl::StrCat(l.key(), "=", l.value()));
  return absl::StrCat("labels of namespace ", e.namespace_(),
                      " observed: ", labels.empty() ? "none" : absl::StrJoin(labels, ", "));
}

std::string SourceObservedWords(const v1::SourceSecretObserved& e) {
  if (!e.found()) return "source Secret observed: not found";
  return absl::StrCat("source Secret observed: ", e.keys_size(),
                      e.keys_size() == 1 ? " key (" : " keys (", absl::StrJoin(e.keys(), ", "),
                      "), ", Source(SourceDigestOf(e)));
}

std::string MirrorWrittenWords(const v1::MirrorWritten& e) {
  return absl::StrCat("mirror ", e.secret().name(), " written in ", e.namespace_(), " (",
                      WriteKindWords(e), ", ", Source(SourceDigestOf(e)), ", ", e.owners_size(),
                      e.owners_size() == 1 ? " owner reference)" : " owner references)");
}

}  // namespace

std::string SummarizeIdentityEvent(const v1::Event& event) {
  switch (event.kind_case()) {
    case v1::Event::kIdentityCreated: {
      const v1::IdentityCreated& e = event.identity_created();
      return absl::StrCat("identity ", e.name(), " created: ", SpecWords(e.spec()), "; ",
                          ReviewWords(e.access_review()));
    }
    case v1::Event::kIdentityUpdated: {
      const v1::IdentityUpdated& e = event.identity_updated();
      return absl::StrCat(
          "identity updated: ", SpecWords(e.spec()),
          e.has_access_review() ? absl::StrCat("; ", ReviewWords(e.access_review())) : "");
    }
    case v1::Event::kIdentityDeleted:
      return "identity deleted";
    case v1::Event::kIdentityBound: {
      const v1::IdentityBound& e = event.identity_bound();
      return absl::StrCat(
          OwnerWords(e.owner()), " bound in namespace ", e.namespace_(),
          e.replaced_uid().empty() ? "" : absl::StrCat(", replacing uid ", e.replaced_uid()));
    }
    case v1::Event::kIdentityUnbound: {
      const v1::IdentityUnbound& e = event.identity_unbound();
      return absl::StrCat(OwnerWords(e.owner()), " unbound in namespace ", e.namespace_());
    }
    case v1::Event::kSourceSecretObserved:
      return SourceObservedWords(event.source_secret_observed());
    case v1::Event::kNamespaceLabelsObserved:
      return LabelsWords(event.namespace_labels_observed());
    case v1::Event::kMirrorWritten:
      return MirrorWrittenWords(event.mirror_written());
    case v1::Event::kMirrorDeleted: {
      const v1::MirrorDeleted& e = event.mirror_deleted();
      return absl::StrCat("mirror ", e.secret().name(), " deleted from ", e.namespace_(), " (",
                          DeletionWords(e.reason()), ")");
    }
    case v1::Event::kMirrorDeletedExternally: {
      const v1::MirrorDeletedExternally& e = event.mirror_deleted_externally();
      return absl::StrCat("mirror ", e.secret().name(), " in ", e.namespace_(),
                          " deleted outside credledger");
    }
    case v1::Event::kBoundObjectGone: {
      const v1::BoundObjectGone& e = event.bound_object_gone();
      return absl::StrCat(OwnerWords(e.owner()), " bound in namespace ", e.namespace_(),
                          " is gone (", AbsenceWords(e.absence()), ")");
    }
    case v1::Event::kMirrorFailed: {
      const v1::MirrorFailed& e = event.mirror_failed();
      return absl::StrCat("mirror in ", e.namespace_(), " failed (", FailureWords(e.kind()),
                          "): ", e.message());
    }
    case v1::Event::kClusterRegistered:
    case v1::Event::kClusterSpecChanged:
    case v1::Event::kClusterDeregistered:
    case v1::Event::kClusterProbed:
    case v1::Event::kSourceVerified:
    case v1::Event::kCallsDenied:
    case v1::Event::kLogAdopted:
    case v1::Event::kServiceConfigured:
    case v1::Event::kTargetRegistered:
    case v1::Event::kTargetDeletionRequested:
    case v1::Event::kTargetFinalized:
    case v1::Event::kRotationRequested:
    case v1::Event::kTargetRevoked:
    case v1::Event::kRevocationLifted:
    case v1::Event::kRolloutConfirmed:
    case v1::Event::kCredentialMintRequested:
    case v1::Event::kStaleCredentialsDeleted:
    case v1::Event::kCredentialSecretCreated:
    case v1::Event::kCredentialIssued:
    case v1::Event::kCredentialMintFailed:
    case v1::Event::kCredentialMintAbandoned:
    case v1::Event::kCredentialSecretDeleted:
    case v1::Event::kCredentialSecretDeletedExternally:
    case v1::Event::kIdentityObjectsWritten:
    case v1::Event::kReportAccepted:
    case v1::Event::kReportingStale:
    case v1::Event::kReportClockSkewDetected:
    case v1::Event::kReportClockSkewCleared:
    case v1::Event::kBoundReleasesSet:
    case v1::Event::kLivenessObserved:
    case v1::Event::KIND_NOT_SET:
      break;
  }
  return "not an identity event";
}

}  // namespace credledger::projections
