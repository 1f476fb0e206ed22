#include "test/kubeapi/list_pages.h"

#include <algorithm>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "test/kubeapi/kube_status.h"

namespace credledger::kubeapi {
namespace {

// The token is web-safe base64 of "<snapshot id>:<offset of the next object>".
std::string EncodeToken(uint64_t id, size_t offset) {
  return absl::WebSafeBase64Escape(absl::StrCat(id, ":", offset));
}

bool DecodeToken(const std::string& token, uint64_t* id, size_t* offset) {
  std::string text;
  if (!absl::WebSafeBase64Unescape(token, &text)) return false;
  std::vector<absl::string_view> parts = absl::StrSplit(text, ':');
  return parts.size() == 2 && absl::SimpleAtoi(parts[0], id) && absl::SimpleAtoi(parts[1], offset);
}

}  // namespace

ListPages::ListPages(const common::Clock* clock, absl::Duration ttl, size_t max_open)
    : clock_(clock), ttl_(ttl), max_open_(max_open) {}

ListPage ListPages::First(ListSnapshot snapshot, const std::string& collection, int64_t limit) {
  absl::MutexLock lock(&mu_);
  const absl::Time now = clock_->Now();
  DropExpired(now);
  const uint64_t id = next_id_++;
  Snapshot& kept = open_[id];
  kept.collection = collection;
  kept.items = std::move(snapshot.items);
  kept.resource_version = snapshot.resource_version;
  kept.expires_at = now + ttl_;
  while (open_.size() > max_open_) open_.erase(open_.begin());
  return Cut(id, kept, 0, limit);  // the newest snapshot is never the one evicted
}

absl::StatusOr<ListPage> ListPages::Next(const std::string& token, const std::string& collection,
                                         int64_t limit) {
  uint64_t id = 0;
  size_t offset = 0;
  if (!DecodeToken(token, &id, &offset)) {
    return BadRequestError(absl::StrCat("continue key is not valid: ", token));
  }
  absl::MutexLock lock(&mu_);
  DropExpired(clock_->Now());
  auto it = open_.find(id);
  if (it == open_.end()) {
    return ExpiredError(
        "The provided continue parameter is too old to display a consistent list result. You "
        "can start a new list without the continue parameter.");
  }
  if (it->second.collection != collection || offset > it->second.items.size()) {
    return BadRequestError(absl::StrCat("continue key is not valid: ", token));
  }
  return Cut(id, it->second, offset, limit);
}

ListPage ListPages::Cut(uint64_t id, Snapshot& snapshot, size_t offset, int64_t limit) {
  const size_t total = snapshot.items.size();
  const size_t end = limit <= 0 ? total : std::min(total, offset + static_cast<size_t>(limit));
  ListPage page;
  page.resource_version = snapshot.resource_version;
  page.items.assign(snapshot.items.begin() + static_cast<std::ptrdiff_t>(offset),
                    snapshot.items.begin() + static_cast<std::ptrdiff_t>(end));
  page.remaining = static_cast<int64_t>(total - end);
  if (end < total) {
    page.continue_token = EncodeToken(id, end);
  } else {
    open_.erase(id);
  }
  return page;
}

void ListPages::DropExpired(absl::Time now) {
  // Every snapshot lives as long, so the oldest expires first.
  while (!open_.empty() && open_.begin()->second.expires_at <= now) open_.erase(open_.begin());
}

}  // namespace credledger::kubeapi
