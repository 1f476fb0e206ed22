#include "cli/identity_printer.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/target_printer.h"
#include "cli/text_fields.h"
#include "projections/mirror_naming.h"
#include "service/offline/mirror_view.h"

namespace credledger::cli {
namespace {

// Width of the labels of LabeledLine.
constexpr int kIdentityLabelWidth = 12;

// A source digest (projections::SourceDigestOf) as a table shows it:
// projections::ShortSourceDigest, "-" when empty.
std::string ShortHash(absl::string_view digest) {
  if (digest.empty()) return "-";
  return projections::ShortSourceDigest(digest);
}

std::string PhaseName(v1::IdentityState::Phase phase) {
  switch (phase) {
    case v1::IdentityState::PHASE_ACTIVE:
      return "active";
    case v1::IdentityState::PHASE_DELETED:
      return "deleted";
    default:
      return "unknown";
  }
}

std::string SelectorText(const v1::LabelSelector& selector) {
  std::vector<std::string> parts;
  for (const v1::Label& label : selector.match_labels()) {
    parts.push_back(absl::StrCat(label.key(), "=", label.value()));
  }
  for (const v1::LabelSelectorRequirement& r : selector.match_expressions()) {
    parts.push_back(absl::StrCat(
        r.key(), " ", r.operator_(),
        r.values().empty() ? "" : absl::StrCat(" (", absl::StrJoin(r.values(), ", "), ")")));
  }
  return absl::StrJoin(parts, ", ");
}

std::string OwnerText(const v1::OwnerReference& owner) {
  return absl::StrCat(owner.kind(), "/", owner.name(), " (", owner.api_version(), ", uid ",
                      owner.uid(), ")");
}

std::string SourceText(const v1::SourceObservation& source) {
  if (!source.observed()) return "not observed yet";
  if (!source.found()) {
    return absl::StrCat("not found (as of ",
                        FormatTimestamp(source.observed_at(), source.has_observed_at()), ")");
  }
  return absl::StrCat(
      "found, ", projections::SourceDigestWords(projections::SourceDigestOf(source)), ", keys ",
      source.keys().empty() ? "none" : absl::StrJoin(source.keys(), ", "));
}

std::string ReviewText(const v1::AccessReview& review) {
  return absl::StrCat("user ", review.user(),
                      review.groups().empty()
                          ? ""
                          : absl::StrCat(" (groups ", absl::StrJoin(review.groups(), ", "), ")"),
                      review.allowed() ? " may" : " may not", " get ", review.secret().namespace_(),
                      "/", review.secret().name());
}

std::string ConditionLine(absl::string_view type, const v1::Condition& c) {
  return absl::StrFormat("    %-20s %s\n", absl::StrCat(type, ":"),
                         absl::StrCat(c.status().empty() ? "-" : c.status(), "/", c.reason(),
                                      c.message().empty() ? "" : absl::StrCat(": ", c.message())));
}

std::string NamespaceText(const v1::IdentityState& identity, const v1::IdentityNamespaceState& ns) {
  std::vector<std::string> owners;
  for (const v1::IdentityBinding& binding : ns.bindings()) {
    owners.push_back(absl::StrCat(OwnerText(binding.owner()), binding.gone() ? " (gone)" : ""));
  }
  std::string out = absl::StrCat(
      "  ", ns.namespace_(), ": ",
      owners.empty() ? "no bindings" : absl::StrCat("bound by ", absl::StrJoin(owners, ", ")),
      "\n");
  std::string mirror = "none";
  if (ns.has_mirror()) {
    mirror =
        absl::StrCat(ns.mirror().secret().name(), ", ",
                     projections::SourceDigestWords(projections::SourceDigestOf(ns.mirror())), ", ",
                     service::MirrorIsCurrent(identity, ns.mirror()) ? "current" : "stale");
  }
  absl::StrAppendFormat(&out, "    %-20s %s\n", "mirror:", mirror);
  absl::StrAppend(&out, ConditionLine("IdentityAllowed", ns.identity_allowed()),
                  ConditionLine("CredentialsMirrored", ns.credentials_mirrored()));
  return out;
}

}  // namespace

std::string FormatAllowedNamespaces(const v1::IdentitySpec& spec) {
  if (!spec.has_allowed_namespaces()) return "no namespace (unset)";
  const v1::AllowedNamespaces& allowed = spec.allowed_namespaces();
  std::vector<std::string> parts;
  if (!allowed.list().empty()) {
    parts.push_back(absl::StrCat("namespaces ", absl::StrJoin(allowed.list(), ", ")));
  }
  if (allowed.has_selector()) {
    const std::string selector = SelectorText(allowed.selector());
    parts.push_back(selector.empty() ? "every namespace (selector {})"
                                     : absl::StrCat("selector ", selector));
  }
  if (parts.empty()) return "none ({})";
  return absl::StrJoin(parts, "; or ");
}

std::string FormatIdentityText(const v1::IdentityState& identity) {
  const v1::IdentitySpec& spec = identity.spec();
  std::string out =
      absl::StrCat("identity ", identity.name(), " (", PhaseName(identity.phase()), ")\n");
  absl::StrAppend(
      &out,
      LabeledLine("secret",
                  absl::StrCat(spec.secret_ref().namespace_(), "/", spec.secret_ref().name()),
                  kIdentityLabelWidth),
      LabeledLine("cluster", spec.cluster().empty() ? "home" : spec.cluster(), kIdentityLabelWidth),
      LabeledLine("allowed", FormatAllowedNamespaces(spec), kIdentityLabelWidth),
      LabeledLine("source", SourceText(identity.source()), kIdentityLabelWidth),
      LabeledLine("review",
                  identity.has_access_review() ? ReviewText(identity.access_review()) : "-",
                  kIdentityLabelWidth),
      LabeledLine("created", FormatTimestamp(identity.created_at(), identity.has_created_at()),
                  kIdentityLabelWidth),
      LabeledLine("updated", FormatTimestamp(identity.updated_at(), identity.has_updated_at()),
                  kIdentityLabelWidth),
      LabeledLine("seq", absl::StrCat(identity.seq()), kIdentityLabelWidth));
  if (identity.namespaces().empty()) {
    absl::StrAppend(&out, LabeledLine("namespaces", "none", kIdentityLabelWidth));
    return out;
  }
  absl::StrAppend(&out, "  namespaces:\n");
  for (const v1::IdentityNamespaceState& ns : identity.namespaces()) {
    absl::StrAppend(&out, NamespaceText(identity, ns));
  }
  return out;
}

std::string FormatIdentityChangeText(absl::string_view verb,
                                     const v1::IdentityChangeResponse& response) {
  std::string summary = absl::StrCat(verb, " identity ", response.identity().name());
  if (response.replayed()) {
    absl::StrAppend(&summary, ": request already answered, nothing appended (seq ", response.seq(),
                    ")");
  } else if (response.seq() == 0) {
    absl::StrAppend(&summary, ": already in that state, nothing appended");
  } else {
    absl::StrAppend(&summary, " (seq ", response.seq(), ")");
  }
  return absl::StrCat(summary, "\n", FormatIdentityText(response.identity()));
}

std::string FormatIdentityTableHeader() {
  return absl::StrFormat("%-32s %-8s %-40s %-10s %-7s %s\n", "IDENTITY", "PHASE", "SECRET",
                         "NAMESPACES", "MIRRORS", "SOURCE");
}

std::string FormatIdentityRow(const v1::IdentityState& identity) {
  int bound = 0;
  int mirrors = 0;
  for (const v1::IdentityNamespaceState& ns : identity.namespaces()) {
    if (!ns.bindings().empty()) ++bound;
    if (ns.has_mirror()) ++mirrors;
  }
  const v1::SourceObservation& source = identity.source();
  const std::string source_text = !source.observed() ? "unobserved"
                                  : !source.found()
                                      ? "missing"
                                      : ShortHash(projections::SourceDigestOf(source));
  const v1::SourceSecretRef& secret = identity.spec().secret_ref();
  return absl::StrFormat(
      "%-32s %-8s %-40s %-10d %-7d %s\n", identity.name(), PhaseName(identity.phase()),
      absl::StrCat(secret.namespace_(), "/", secret.name()), bound, mirrors, source_text);
}

std::string FormatMirrorTableHeader() {
  return absl::StrFormat("%-32s %-24s %-40s %-12s %-7s %-28s %s\n", "IDENTITY", "NAMESPACE",
                         "SECRET", "FINGERPRINT", "CURRENT", "MIRRORED", "OWNERS");
}

std::string FormatMirrorRow(const v1::MirrorView& mirror) {
  std::vector<std::string> owners;
  for (const v1::OwnerReference& owner : mirror.owners()) {
    owners.push_back(absl::StrCat(owner.kind(), "/", owner.name()));
  }
  const v1::Condition& mirrored = mirror.credentials_mirrored();
  return absl::StrFormat(
      "%-32s %-24s %-40s %-12s %-7s %-28s %s\n", mirror.identity(), mirror.namespace_(),
      mirror.secret().name(), ShortHash(projections::SourceDigestOf(mirror)),
      mirror.current() ? "yes" : "no",
      absl::StrCat(mirrored.status().empty() ? "-" : mirrored.status(), "/", mirrored.reason()),
      owners.empty() ? "-" : absl::StrJoin(owners, ", "));
}

}  // namespace credledger::cli
