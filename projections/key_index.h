// KeyIndex<T>: finds an item by its string key (a stream name, a StatusKey) in a projection
// whose items live elsewhere at stable addresses (nodes of a std::map). A fold looks up an
// item for nearly every event; with each key a heap string of its own, scattered among the
// items' memory, most lookups missed the cache twice (the slot, then the key's bytes to
// compare). Here the keys are copied one after another into large blocks kept for the index's
// life, so that the keys of many items share cache lines (docs/performance.md, "Audit export and
// replay").
//
// Keys are never removed (projections keep finalized items). Moving the index keeps the views
// and pointers valid (the blocks are on the heap) and leaves the source empty; it cannot be
// copied.
//
// Thread-safety: not thread-safe; const methods may run on several threads at once.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"

namespace credledger::projections {

template <typename T>
class KeyIndex {
 public:
  KeyIndex() = default;
  // A moved-from index is empty and usable.
  KeyIndex(KeyIndex&& other) noexcept { *this = std::move(other); }
  KeyIndex& operator=(KeyIndex&& other) noexcept {
    if (this == &other) return *this;
    blocks_ = std::move(other.blocks_);
    next_ = std::exchange(other.next_, nullptr);
    free_ = std::exchange(other.free_, 0);
    items_ = std::move(other.items_);
    other.blocks_.clear();
    other.items_.clear();
    return *this;
  }
  KeyIndex(const KeyIndex&) = delete;
  KeyIndex& operator=(const KeyIndex&) = delete;

  // The item of `key`; nullptr when none was set.
  T* Find(absl::string_view key) const {
    auto it = items_.find(key);
    return it == items_.end() ? nullptr : it->second;
  }

  // Makes `item` (not owned; must outlive the index or be set again) the item of `key`,
  // replacing any.
  void Set(absl::string_view key, T* item) {
    auto it = items_.find(key);
    if (it != items_.end()) {
      it->second = item;
      return;
    }
    items_.emplace(Keep(key), item);
  }

 private:
  // Bytes per block; a longer key gets a block of its own size.
  static constexpr size_t kBlockBytes = 64 * 1024;

  // A copy of `key` in the blocks, valid for the index's life.
  absl::string_view Keep(absl::string_view key) {
    if (key.size() > free_) {
      const size_t size = std::max(kBlockBytes, key.size());
      blocks_.push_back(std::make_unique<char[]>(size));
      next_ = blocks_.back().get();
      free_ = size;
    }
    if (!key.empty()) std::memcpy(next_, key.data(), key.size());
    const absl::string_view kept(next_, key.size());
    next_ += key.size();
    free_ -= key.size();
    return kept;
  }

  std::vector<std::unique_ptr<char[]>> blocks_;
  char* next_ = nullptr;  // the first free byte of the last block
  size_t free_ = 0;       // bytes free after next_
  absl::flat_hash_map<absl::string_view, T*> items_;
};

}  // namespace credledger::projections
