// ReadSnapshotItems: reads a fleet snapshot (a CredentialFleetState, a StatusFleetState: a
// message with one repeated field of items, one per Target) item by item, so that a
// projection loading it holds one item decoded at a time instead of the whole fleet
// (docs/design.md, "Projections"). The writer's side is PackedState::AppendAsField.
#pragma once

#include <google/protobuf/message.h>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"

namespace credledger::projections {

// Parses `bytes` (the wire form of `head`'s message type) into `head`, except the
// length-delimited field `item_field`: the bytes of each of its occurrences are passed to
// `on_item` in order instead (valid during the call only), and `head` keeps none of them.
// Returns false, stopping at once, when `bytes` is not well-formed wire data, when `head`'s
// other fields do not parse, or when `on_item` returns false; `head` is then unspecified.
bool ReadSnapshotItems(absl::string_view bytes, int item_field, google::protobuf::Message& head,
                       absl::FunctionRef<bool(absl::string_view item)> on_item);

}  // namespace credledger::projections
