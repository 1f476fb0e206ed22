// The rules of an identity's spec (docs/mirrors.md, "Allowed namespaces", "Access review" and
// "Revocation"): validation, which
// namespaces it allows, and which changes need an access review.
//
// Allowed namespaces: unset allows no namespace; present but allowing nothing (`{}` or an
// empty list) is refused as ambiguous; `selector {}` allows every existing namespace; `list`
// and `selector` are ORed. A selector follows Kubernetes' metav1.LabelSelector: every
// matchLabels pair and every matchExpressions requirement must hold (In: the key is present
// with one of the values; NotIn: absent, or present with none of them; Exists;
// DoesNotExist). The API refuses an invalid selector; should the log hold one (recorded
// under older rules), it allows nothing and is not retried.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "credledger/v1/identity.pb.h"
#include "credledger/v1/state.pb.h"
#include "google/protobuf/repeated_field.h"

namespace credledger::projections {

// Checks a label selector as Kubernetes does: matchLabels keys are qualified names (an
// optional DNS-1123 subdomain prefix and '/', then 1-63 characters of [A-Za-z0-9._-]
// starting and ending alphanumeric), values are label values (empty, or the same 63-character
// rule), ordered by key without duplicates; matchExpressions have a valid key, an operator
// In, NotIn, Exists or DoesNotExist, values non-empty for In/NotIn and empty otherwise, each
// a valid label value.
// Errors: kInvalidArgument naming the field path under `field`
// ("spec.allowed_namespaces.selector.match_expressions[0].operator") and the rule.
absl::Status ValidateLabelSelector(const v1::LabelSelector& selector, absl::string_view field);

// Checks a whole spec: secret_ref.namespace a DNS-1123 label and secret_ref.name a DNS-1123
// subdomain (both required); allowed_namespaces, when present, neither `{}` nor an empty
// list (the message tells the user to write `selector: {}` to allow every namespace), list
// entries DNS-1123 labels without duplicates, and the selector valid.
// Errors: kInvalidArgument naming the field ("spec.secret_ref.name",
// "spec.allowed_namespaces.list[2]", ...) and the rule.
absl::Status ValidateIdentitySpec(const v1::IdentitySpec& spec);

// True when `selector` matches `labels` (REQUIRES: a valid selector).
bool SelectorMatches(const v1::LabelSelector& selector,
                     const google::protobuf::RepeatedPtrField<v1::Label>& labels);

// Whether a namespace is allowed, with the sentence an IdentityAllowed condition shows.
struct Allowance {
  enum class Verdict { kAllowed, kNotAllowed, kUnknown };
  Verdict verdict = Verdict::kNotAllowed;
  std::string message;
};

// Whether `spec` allows `ns`: listed namespaces are allowed without labels (whether they
// exist or not); otherwise a selector needs the namespace's observed labels (kUnknown before
// the first observation) and allows no namespace observed not to exist (kNotAllowed, "does
// not exist"); an invalid selector or an unset allowed_namespaces allows nothing
// (kNotAllowed, saying why).
Allowance EvaluateAllowed(const v1::IdentitySpec& spec, const v1::IdentityNamespaceState& ns);

// True when changing `before` into `after` needs an access review: another secret_ref, or
// wider allowed namespaces: a list entry added, or a selector added or changed (whether a
// changed selector matches more cannot be known without every namespace's labels, so any
// change counts). Removing list entries or the selector does not.
bool NeedsAccessReview(const v1::IdentitySpec& before, const v1::IdentitySpec& after);

}  // namespace credledger::projections
