// PackedState<State, Summary>: one item of a projection (a Target's state, a Target's rollup)
// kept encoded at rest, its deterministic protobuf bytes, and decoded only while it is in the
// projection's WorkingSet (working_set.h), which alone decodes it (docs/design.md,
// "Projections"). A state encoded takes less than a third of the memory of the same message
// decoded.
//
// `Summary` is what a projection reads of every item in a scan that should decode none (the
// status projection's SilentSince): a copyable type with `static Summary Of(const State&)`,
// taken when the state is encoded. NoSummary keeps nothing.
//
// Invariants: exactly one form holds the state: decoded_ when set, else encoded_ (empty bytes
// are the empty state). A new item holds the empty state.
//
// Thread-safety: const methods may run on several threads at once; the others need the item
// to themselves. Items do not move (a WorkingSet points at them).
#pragma once

#include <google/protobuf/io/coded_stream.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "absl/strings/string_view.h"
#include "store/event_codec.h"

namespace credledger::projections {

template <typename Packed>
class WorkingSet;

// The Summary of items that need none.
struct NoSummary {
  template <typename State>
  static NoSummary Of(const State&) {
    return {};
  }
};

template <typename StateType, typename SummaryType = NoSummary>
class PackedState {
 public:
  using State = StateType;
  using Summary = SummaryType;

  PackedState() = default;
  PackedState(const PackedState&) = delete;
  PackedState& operator=(const PackedState&) = delete;

  // Whether the state is held decoded (the item is in a working set).
  bool decoded() const { return decoded_ != nullptr; }

  // A copy of the state, decoded from the bytes when it is encoded.
  State Copy() const {
    if (decoded_ != nullptr) return *decoded_;
    State state;
    Parse(state);
    return state;
  }

  // The summary of the state as it is now.
  Summary summary() const { return decoded_ != nullptr ? Summary::Of(*decoded_) : summary_; }

  // Holds `state` as `bytes`, its deterministic encoding as a snapshot stored it, with its
  // summary: for a projection read from a snapshot one state at a time (snapshot_items.h),
  // which leaves every item at rest. REQUIRES: !decoded(); `state` parsed from `bytes`.
  void Keep(const State& state, absl::string_view bytes) {
    summary_ = Summary::Of(state);
    encoded_.assign(bytes.data(), bytes.size());
  }

  // Appends the state to `out` as the length-delimited field `field_number` of an enclosing
  // message, byte for byte as the enclosing message's deterministic serialization writes it
  // (WriteSnapshotItems, snapshot_items.h).
  void AppendAsField(int field_number, std::string& out) const {
    if (decoded_ != nullptr) {
      AppendField(field_number, store::SerializeDeterministic(*decoded_), out);
    } else {
      AppendField(field_number, encoded_, out);
    }
  }

 private:
  friend class WorkingSet<PackedState>;

  // Decodes the bytes into decoded_ and frees them. REQUIRES: !decoded().
  void Decode() {
    decoded_ = std::make_unique<State>();
    Parse(*decoded_);
    std::string().swap(encoded_);
  }
  // Encodes decoded_ into the bytes (and the summary) and frees it. REQUIRES: decoded().
  void Encode() {
    summary_ = Summary::Of(*decoded_);
    encoded_ = store::SerializeDeterministic(*decoded_);
    decoded_.reset();
  }

  void Parse(State& state) const {
    // The bytes are this item's own encoding: only corrupted memory fails to parse them.
    if (!state.ParseFromString(encoded_)) std::abort();
  }

  static void AppendField(int field_number, const std::string& bytes, std::string& out) {
    namespace io = google::protobuf::io;
    uint8_t prefix[10];  // two varints of up to 32 bits, 5 bytes each at most
    uint8_t* end = io::CodedOutputStream::WriteVarint32ToArray(
        static_cast<uint32_t>(field_number) << 3 | 2, prefix);  // wire type 2: length-delimited
    end = io::CodedOutputStream::WriteVarint32ToArray(static_cast<uint32_t>(bytes.size()), end);
    out.append(reinterpret_cast<const char*>(prefix), static_cast<size_t>(end - prefix));
    out.append(bytes);
  }

  std::string encoded_;
  std::unique_ptr<State> decoded_;
  // Of the encoded state; stale while decoded.
  [[no_unique_address]] Summary summary_{};
  // Set when the working set opens the item again while it is decoded (its clock's mark).
  bool referenced_ = false;
};

}  // namespace credledger::projections
