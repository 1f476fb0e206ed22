// The column lists of the events and checkpoints tables, the same on every backend
// (docs/log-format.md, "Storage"): the order RecordedEvent and Checkpoint are read in.
#pragma once

#include "absl/strings/string_view.h"

namespace credledger::store {

// The columns of EventFields::kForFolding, first in kEventColumns too.
inline constexpr absl::string_view kFoldColumns =
    "seq, stream, stream_version, type, schema_version, recorded_at_us, payload";
// Every column of an event, in the order of RecordedEvent.
inline constexpr absl::string_view kEventColumns =
    "seq, stream, stream_version, type, schema_version, recorded_at_us, payload, event_id, "
    "metadata, digest, prev_chain_hash, chain_hash, stream_hash";
// Every column of a checkpoint (ReadCheckpointRow).
inline constexpr absl::string_view kCheckpointColumns =
    "seq, chain_hash, signed_at_us, key_id, signature";

}  // namespace credledger::store
