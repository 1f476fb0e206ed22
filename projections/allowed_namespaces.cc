#include "projections/allowed_namespaces.h"

#include <google/protobuf/util/message_differencer.h>

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/dns_label.h"
#include "common/field_error.h"
#include "common/quote_cut.h"
#include "common/status_macros.h"

namespace credledger::projections {
namespace {

constexpr char kOpIn[] = "In";
constexpr char kOpNotIn[] = "NotIn";
constexpr char kOpExists[] = "Exists";
constexpr char kOpDoesNotExist[] = "DoesNotExist";
constexpr size_t kMaxLabelChars = 63;
// Longest part of a refused value quoted in an error.
constexpr size_t kShownLabelValueBytes = 70;

// 1-63 characters of [A-Za-z0-9._-], starting and ending alphanumeric: a label value that is
// not empty, and the name part of a qualified name.
bool LabelNameShape(absl::string_view value) {
  if (value.empty() || value.size() > kMaxLabelChars) return false;
  if (!absl::ascii_isalnum(value.front()) || !absl::ascii_isalnum(value.back())) return false;
  return std::all_of(value.begin(), value.end(), [](char c) {
    return absl::ascii_isalnum(c) || c == '-' || c == '_' || c == '.';
  });
}

constexpr char kLabelShapeRule[] =
    "at most 63 characters of letters, digits, '-', '_' and '.', starting and ending with a "
    "letter or digit";

absl::Status ValidateLabelValue(absl::string_view field, absl::string_view value) {
  if (value.empty() || LabelNameShape(value)) return absl::OkStatus();
  return common::FieldError(field, absl::StrCat(common::QuoteCut(value, kShownLabelValueBytes),
                                                " is not a label value (", kLabelShapeRule, ")"));
}

// A label key: an optional DNS-1123 subdomain prefix and '/', then a name.
absl::Status ValidateQualifiedName(absl::string_view field, absl::string_view key) {
  if (key.empty()) return common::FieldError(field, "required");
  absl::string_view name = key;
  const size_t slash = key.find('/');
  if (slash != absl::string_view::npos) {
    RETURN_IF_ERROR(common::ValidateDnsSubdomain(absl::StrCat(field, " (prefix before '/')"),
                                                 key.substr(0, slash)));
    name = key.substr(slash + 1);
  }
  if (LabelNameShape(name)) return absl::OkStatus();
  return common::FieldError(field,
                            absl::StrCat(common::QuoteCut(key, kShownLabelValueBytes),
                                         " is not a label key (an optional DNS-1123 subdomain and "
                                         "'/', then ",
                                         kLabelShapeRule, ")"));
}

absl::Status ValidateRequirement(absl::string_view field, const v1::LabelSelectorRequirement& r) {
  RETURN_IF_ERROR(ValidateQualifiedName(absl::StrCat(field, ".key"), r.key()));
  const std::string& op = r.operator_();
  if (op == kOpIn || op == kOpNotIn) {
    if (r.values().empty()) {
      return common::FieldError(absl::StrCat(field, ".values"), absl::StrCat("required for ", op));
    }
  } else if (op == kOpExists || op == kOpDoesNotExist) {
    if (!r.values().empty()) {
      return common::FieldError(absl::StrCat(field, ".values"),
                                absl::StrCat("must be empty for ", op));
    }
  } else {
    return common::FieldError(absl::StrCat(field, ".operator"),
                              absl::StrCat(common::QuoteCut(op, kShownLabelValueBytes),
                                           " is not one of In, NotIn, Exists, DoesNotExist"));
  }
  for (int j = 0; j < r.values_size(); ++j) {
    RETURN_IF_ERROR(ValidateLabelValue(absl::StrCat(field, ".values[", j, "]"), r.values(j)));
  }
  return absl::OkStatus();
}

// The value of `key` in `labels`; nullptr when absent.
const std::string* LabelValue(const google::protobuf::RepeatedPtrField<v1::Label>& labels,
                              absl::string_view key) {
  for (const v1::Label& l : labels) {
    if (l.key() == key) return &l.value();
  }
  return nullptr;
}

bool Contains(const google::protobuf::RepeatedPtrField<std::string>& values,
              absl::string_view value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

bool RequirementMatches(const v1::LabelSelectorRequirement& r,
                        const google::protobuf::RepeatedPtrField<v1::Label>& labels) {
  const std::string* value = LabelValue(labels, r.key());
  const std::string& op = r.operator_();
  if (op == kOpIn) return value != nullptr && Contains(r.values(), *value);
  if (op == kOpNotIn) return value == nullptr || !Contains(r.values(), *value);
  if (op == kOpExists) return value != nullptr;
  if (op == kOpDoesNotExist) return value == nullptr;
  return false;  // an invalid operator matches nothing
}

Allowance Verdict(Allowance::Verdict verdict, std::string message) {
  return Allowance{verdict, std::move(message)};
}

}  // namespace

absl::Status ValidateLabelSelector(const v1::LabelSelector& selector, absl::string_view field) {
  for (int i = 0; i < selector.match_labels_size(); ++i) {
    const v1::Label& label = selector.match_labels(i);
    const std::string path = absl::StrCat(field, ".match_labels[", i, "]");
    RETURN_IF_ERROR(ValidateQualifiedName(absl::StrCat(path, ".key"), label.key()));
    RETURN_IF_ERROR(ValidateLabelValue(absl::StrCat(path, ".value"), label.value()));
    if (i > 0 && !(selector.match_labels(i - 1).key() < label.key())) {
      return common::FieldError(
          absl::StrCat(path, ".key"),
          absl::StrCat("\"", label.key(), "\" does not come after \"",
                       selector.match_labels(i - 1).key(),
                       "\": match_labels are ordered by key without duplicates"));
    }
  }
  for (int i = 0; i < selector.match_expressions_size(); ++i) {
    RETURN_IF_ERROR(ValidateRequirement(absl::StrCat(field, ".match_expressions[", i, "]"),
                                        selector.match_expressions(i)));
  }
  return absl::OkStatus();
}

absl::Status ValidateIdentitySpec(const v1::IdentitySpec& spec) {
  RETURN_IF_ERROR(
      common::ValidateDnsLabel("spec.secret_ref.namespace", spec.secret_ref().namespace_()));
  RETURN_IF_ERROR(common::ValidateDnsSubdomain("spec.secret_ref.name", spec.secret_ref().name()));
  if (!spec.has_allowed_namespaces()) return absl::OkStatus();
  const v1::AllowedNamespaces& allowed = spec.allowed_namespaces();
  if (allowed.list().empty() && !allowed.has_selector()) {
    return common::FieldError(
        "spec.allowed_namespaces",
        "present but allows nothing ({} or an empty list) is ambiguous and "
        "refused: write `selector: {}` to allow every namespace, name the "
        "namespaces under `list`, or leave allowed_namespaces unset to allow none");
  }
  std::set<absl::string_view> seen;
  for (int i = 0; i < allowed.list_size(); ++i) {
    const std::string field = absl::StrCat("spec.allowed_namespaces.list[", i, "]");
    RETURN_IF_ERROR(common::ValidateDnsLabel(field, allowed.list(i)));
    if (!seen.insert(allowed.list(i)).second) {
      return common::FieldError(field, absl::StrCat("\"", allowed.list(i), "\" is listed twice"));
    }
  }
  if (!allowed.has_selector()) return absl::OkStatus();
  return ValidateLabelSelector(allowed.selector(), "spec.allowed_namespaces.selector");
}

bool SelectorMatches(const v1::LabelSelector& selector,
                     const google::protobuf::RepeatedPtrField<v1::Label>& labels) {
  for (const v1::Label& want : selector.match_labels()) {
    const std::string* value = LabelValue(labels, want.key());
    if (value == nullptr || *value != want.value()) return false;
  }
  return std::all_of(
      selector.match_expressions().begin(), selector.match_expressions().end(),
      [&](const v1::LabelSelectorRequirement& r) { return RequirementMatches(r, labels); });
}

Allowance EvaluateAllowed(const v1::IdentitySpec& spec, const v1::IdentityNamespaceState& ns) {
  using V = Allowance::Verdict;
  const std::string& name = ns.namespace_();
  if (!spec.has_allowed_namespaces()) {
    return Verdict(V::kNotAllowed, "identity allows no namespace (allowedNamespaces is unset)");
  }
  const v1::AllowedNamespaces& allowed = spec.allowed_namespaces();
  if (Contains(allowed.list(), name)) {
    return Verdict(V::kAllowed,
                   absl::StrCat("namespace ", name, " is listed in allowedNamespaces.list"));
  }
  if (!allowed.has_selector()) {
    return Verdict(V::kNotAllowed, absl::StrCat("namespace ", name,
                                                " is not in allowedNamespaces.list and there is "
                                                "no selector"));
  }
  if (absl::Status valid = ValidateLabelSelector(allowed.selector(), "selector"); !valid.ok()) {
    return Verdict(V::kNotAllowed, absl::StrCat("allowedNamespaces.selector is invalid (",
                                                valid.message(), "): it allows nothing"));
  }
  if (!ns.labels_observed()) {
    return Verdict(V::kUnknown, absl::StrCat("waiting for the labels of namespace ", name));
  }
  if (!ns.namespace_found()) {
    return Verdict(V::kNotAllowed, absl::StrCat("namespace ", name, " does not exist"));
  }
  if (SelectorMatches(allowed.selector(), ns.labels())) {
    return Verdict(V::kAllowed, absl::StrCat("the labels of namespace ", name,
                                             " match allowedNamespaces.selector"));
  }
  return Verdict(V::kNotAllowed,
                 absl::StrCat("namespace ", name,
                              " is not in allowedNamespaces.list and its labels do not match "
                              "the selector"));
}

bool NeedsAccessReview(const v1::IdentitySpec& before, const v1::IdentitySpec& after) {
  if (before.secret_ref().namespace_() != after.secret_ref().namespace_() ||
      before.secret_ref().name() != after.secret_ref().name()) {
    return true;
  }
  const v1::AllowedNamespaces& was = before.allowed_namespaces();
  const v1::AllowedNamespaces& is = after.allowed_namespaces();
  const std::set<absl::string_view> listed(was.list().begin(), was.list().end());
  for (const std::string& name : is.list()) {
    if (listed.count(name) == 0) return true;
  }
  if (!is.has_selector()) return false;
  return !was.has_selector() ||
         !google::protobuf::util::MessageDifferencer::Equals(was.selector(), is.selector());
}

}  // namespace credledger::projections
