// WorkingSet<Packed>: the items of a projection held decoded (PackedState, packed_state.h), so
// that folds change them in place (docs/design.md, "Projections"). Every other item rests
// encoded.
//
// Bounded (the default), it holds at most `bound` items: opening one more encodes a member
// first, chosen by the clock algorithm (a member opened again since the hand last passed it
// is passed over once), so the Targets a burst of events touches stay decoded through it. A
// bulk fold (a catch-up, a rebuild, an as-of answer) unbounds it: every item it opens stays
// decoded, so that no event pays a decode and an encode, and Compact encodes them all when the
// projection is kept afterwards (a projector's start).
//
// Members are pointers to items that live elsewhere at stable addresses (map nodes); an item
// must not be destroyed while a member. Moving the set keeps them.
//
// Thread-safety: not thread-safe.
#pragma once

#include <cstddef>
#include <vector>

namespace credledger::projections {

// Items a bounded working set holds decoded: a few hundred KiB per projection.
inline constexpr size_t kWorkingSetBound = 256;

template <typename Packed>
class WorkingSet {
 public:
  using State = typename Packed::State;

  // REQUIRES: bound >= 1.
  explicit WorkingSet(size_t bound = kWorkingSetBound) : bound_(bound) {}
  WorkingSet(WorkingSet&&) = default;
  WorkingSet& operator=(WorkingSet&&) = default;
  WorkingSet(const WorkingSet&) = delete;
  WorkingSet& operator=(const WorkingSet&) = delete;

  // The state of `item`, decoded (from now on a member) and changed in place by the caller.
  // Valid until the next Open or Compact: when the set is bounded and full, Open encodes
  // another member.
  State& Open(Packed& item) {
    if (item.decoded()) {
      item.referenced_ = true;
      return *item.decoded_;
    }
    if (unbounded_ || members_.size() < bound_) {
      members_.push_back(&item);
    } else {
      while (members_[hand_]->referenced_) {
        members_[hand_]->referenced_ = false;
        hand_ = (hand_ + 1) % members_.size();
      }
      members_[hand_]->Encode();
      members_[hand_] = &item;
      hand_ = (hand_ + 1) % members_.size();
    }
    item.Decode();
    item.referenced_ = false;
    return *item.decoded_;
  }

  // Lets the set grow without bound until Compact (a bulk fold).
  void Unbound() { unbounded_ = true; }
  bool unbounded() const { return unbounded_; }

  // Encodes every member and bounds the set again.
  void Compact() {
    for (Packed* member : members_) member->Encode();
    members_.clear();
    hand_ = 0;
    unbounded_ = false;
  }

  // Items held decoded.
  size_t size() const { return members_.size(); }

 private:
  size_t bound_;
  bool unbounded_ = false;
  std::vector<Packed*> members_;
  size_t hand_ = 0;  // the clock's hand: the next member considered for encoding
};

}  // namespace credledger::projections
