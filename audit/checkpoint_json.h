// A signed checkpoint as a JSON object, the one spelling shared by export trailers and
// witnesses (docs/audit.md, "Trailer" and "Witnesses"): {"seq": "<decimal>", "chain_hash":
// "<hex>", "signed_at_us": "<decimal>", "key_id": "<key id>", "signature": "<hex>"}, int64
// fields as decimal strings and bytes as lowercase hex.
//
// Thread-safety: stateless functions.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "audit/export_format_internal.h"
#include "credledger/v1/audit.pb.h"

namespace credledger::audit {

// `checkpoint` as a JSON object, keys in the order above.
OrderedJson CheckpointToJson(const v1::Checkpoint& checkpoint);
// Reads `json` (integers as numbers or decimal strings) into `checkpoint`. `prefix` names
// the object in errors ("trailer.checkpoint."). Errors: kInvalidArgument `field "<prefix>seq":
// <rule>` for the first missing or malformed field.
absl::Status CheckpointFromJson(const Json& json, const std::string& prefix,
                                v1::Checkpoint& checkpoint);

}  // namespace credledger::audit
