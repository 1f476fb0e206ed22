// The API view of a Target (proto/credledger/v1/api.proto, message Target) built from the
// credential read model (projections::CredentialProjection).
//
// The view carries what a renderer needs to mount the credential (the Secret's name, its
// credentialTag, the connection hash and the chart version suffix built from both, validity
// times) and never any token material: TargetState's token fingerprints are left out
// (docs/design.md, "Security model").
//
// Pure functions; thread-safe.
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "credledger/v1/api.pb.h"
#include "credledger/v1/state.pb.h"

namespace credledger::service {

// "-<connection_hash>-<credential_tag>": the suffix a renderer appends to a chart version
// (docs/credentials.md, "Credential tag and connection hash": the connection hash goes
// before the tag, so a changed connection renders a new chart too).
std::string ChartVersionSuffix(absl::string_view connection_hash,
                               absl::string_view credential_tag);

// "Active", "Deleting" or "Finalized"; "Unregistered" for a state that was never registered.
std::string PhaseName(v1::TargetState::Phase phase);

// The view of `state` under a service whose connection hash is `connection_hash`
// (ServiceConfigured.connection_hash). REQUIRES: `state` was registered at least once.
v1::Target ToTargetView(const v1::TargetState& state, absl::string_view connection_hash);

}  // namespace credledger::service
