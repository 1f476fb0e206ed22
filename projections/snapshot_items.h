// A fleet snapshot (a CredentialFleetState, a StatusFleetState: a message with one repeated
// field of items, one per Target) written from and read into items kept encoded
// (PackedState), one item at a time, so that a projection never holds the whole fleet
// decoded to write or load one (docs/design.md, "Projections").
#pragma once

#include <google/protobuf/message.h>

#include <string>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "store/event_codec.h"

namespace credledger::projections {

// The snapshot's bytes, as its message's deterministic serialization writes them: `head`'s
// fields (all numbered below `item_field`), then the value of each entry of `items` (a map
// whose values have PackedState's AppendAsField) as the length-delimited field `item_field`,
// in the map's order, then `tail`'s fields (all numbered above `item_field`).
template <typename Items>
std::string WriteSnapshotItems(const google::protobuf::Message& head, int item_field,
                               const Items& items, const google::protobuf::Message& tail) {
  std::string out = store::SerializeDeterministic(head);
  for (const auto& [key, item] : items) item.AppendAsField(item_field, out);
  out += store::SerializeDeterministic(tail);
  return out;
}

// Parses `bytes` (the wire form of `head`'s message type) into `head`, except the
// length-delimited field `item_field`: the bytes of each of its occurrences are passed to
// `on_item` in order instead (valid during the call only), and `head` keeps none of them.
// Returns false, stopping at once, when `bytes` is not well-formed wire data, when `head`'s
// other fields do not parse, or when `on_item` returns false; `head` is then unspecified.
bool ReadSnapshotItems(absl::string_view bytes, int item_field, google::protobuf::Message& head,
                       absl::FunctionRef<bool(absl::string_view item)> on_item);

}  // namespace credledger::projections
