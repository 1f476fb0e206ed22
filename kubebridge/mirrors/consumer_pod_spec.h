// The Pod spec fragment a consumer of an identity's mirror adds to its workload
// (docs/mirrors.md, "Delivery to workloads"): the mirror Secret as environment variables
// (envFrom) and as a read-only volume of one file per key at /var/run/captf/credentials with
// mode 0440.
//
// Thread-safety: pure function.
#pragma once

#include <nlohmann/json.hpp>

#include "absl/strings/string_view.h"

namespace credledger::kubebridge {

// The volume's name in the fragment, its mount path and its file mode (0440: owner and
// group may read).
inline constexpr char kCredentialsVolumeName[] = "captf-credentials";
inline constexpr char kCredentialsMountPath[] = "/var/run/captf/credentials";
inline constexpr int kCredentialsFileMode = 0440;

// A PodSpec fragment for the mirror of `identity` (projections::MirrorSecretName) used by
// container `container`, to be merged into a Pod template:
//   {"volumes":[{"name":"captf-credentials","secret":{"secretName":<mirror>,
//     "defaultMode":288}}],
//    "containers":[{"name":<container>,"envFrom":[{"secretRef":{"name":<mirror>}}],
//     "volumeMounts":[{"name":"captf-credentials","mountPath":"/var/run/captf/credentials",
//     "readOnly":true}]}]}
// (288 is 0440 in decimal: JSON has no octal). The names are used as given; the caller
// validates them.
nlohmann::json ConsumerPodSpec(absl::string_view identity, absl::string_view container);

}  // namespace credledger::kubebridge
