#include "service/grpc/auth/denial_ledger.h"

#include <algorithm>
#include <utility>

#include "projections/proto_time.h"
#include "service/api/target_api.h"
#include "service/decide/validation.h"

namespace credledger::service {
namespace {

// The start of the UTC minute `t` falls in.
absl::Time MinuteOf(absl::Time t) {
  const int64_t seconds = absl::ToUnixSeconds(t);
  return absl::FromUnixSeconds(seconds - ((seconds % 60) + 60) % 60);
}

}  // namespace

void DenialLedger::Count(Entry& entry, absl::string_view rpc, int64_t count, absl::Time first,
                         absl::Time last) {
  entry.rpcs[std::string(rpc)] += count;
  entry.first_at = std::min(entry.first_at, first);
  entry.last_at = std::max(entry.last_at, last);
}

void DenialLedger::Declared(Entry& entry, absl::string_view name) {
  if (name.empty() || entry.declared_names.contains(std::string(name))) return;
  if (!ValidateToken("", name, kMaxActorBytes).ok() ||
      entry.declared_names.size() >= static_cast<size_t>(kMaxDeclaredNames)) {
    entry.unlisted_declared_names = true;
    return;
  }
  entry.declared_names.emplace(name);
}

v1::CallsDenied DenialLedger::ToEvent(absl::Time minute, const std::string& identity,
                                      const std::string& authentication, const Entry& entry) {
  v1::CallsDenied event;
  *event.mutable_minute() = projections::ToProto(minute);
  event.set_identity(identity);
  event.set_authentication(authentication);
  for (const auto& [rpc, count] : entry.rpcs) {
    v1::DeniedRpc* denied = event.add_rpcs();
    denied->set_rpc(rpc);
    denied->set_count(count);
  }
  *event.mutable_first_at() = projections::ToProto(entry.first_at);
  *event.mutable_last_at() = projections::ToProto(entry.last_at);
  event.set_identities(entry.identities);
  for (const std::string& name : entry.declared_names) event.add_declared_names(name);
  event.set_unlisted_declared_names(entry.unlisted_declared_names);
  return event;
}

bool DenialLedger::Add(absl::string_view identity, absl::string_view authentication,
                       absl::string_view rpc, absl::Time at, absl::string_view declared_name) {
  absl::MutexLock lock(&mu_);
  Minute& minute = minutes_[MinuteOf(at)];
  std::pair<std::string, std::string> key(identity, authentication);
  auto it = minute.by_identity.find(key);
  bool opened = false;
  if (it == minute.by_identity.end() &&
      minute.by_identity.size() < static_cast<size_t>(kMaxIdentitiesPerMinute)) {
    it = minute.by_identity.emplace(std::move(key), Entry{}).first;
    opened = true;
  }
  if (it != minute.by_identity.end()) {
    Count(it->second, rpc, 1, at, at);
    Declared(it->second, declared_name);
    return opened;
  }
  opened = minute.others.rpcs.empty();
  if (minute.folded.size() < static_cast<size_t>(kMaxFoldedIdentities)) {
    minute.folded.emplace(identity);
  }
  minute.others.identities = static_cast<int64_t>(minute.folded.size());
  Count(minute.others, rpc, 1, at, at);
  Declared(minute.others, declared_name);
  return opened;
}

std::vector<v1::CallsDenied> DenialLedger::TakeEndedBefore(absl::Time now) {
  std::vector<v1::CallsDenied> taken;
  absl::MutexLock lock(&mu_);
  for (auto it = minutes_.begin(); it != minutes_.end() && it->first + absl::Minutes(1) <= now;
       it = minutes_.erase(it)) {
    for (const auto& [key, entry] : it->second.by_identity) {
      taken.push_back(ToEvent(it->first, key.first, key.second, entry));
    }
    if (!it->second.others.rpcs.empty()) {
      taken.push_back(ToEvent(it->first, "", "", it->second.others));
    }
  }
  return taken;
}

void DenialLedger::Merge(Entry& into, const v1::CallsDenied& from) {
  for (const v1::DeniedRpc& rpc : from.rpcs()) {
    Count(into, rpc.rpc(), rpc.count(), projections::FromProto(from.first_at()),
          projections::FromProto(from.last_at()));
  }
  // `from` holds the earlier refusals: its names come first, then those counted since.
  std::set<std::string> since = std::move(into.declared_names);
  into.declared_names.clear();
  for (const std::string& name : from.declared_names()) Declared(into, name);
  for (const std::string& name : since) Declared(into, name);
  into.unlisted_declared_names = into.unlisted_declared_names || from.unlisted_declared_names();
}

void DenialLedger::Restore(std::vector<v1::CallsDenied> entries) {
  absl::MutexLock lock(&mu_);
  for (const v1::CallsDenied& event : entries) {
    Minute& minute = minutes_[projections::FromProto(event.minute())];
    if (event.identity().empty()) {
      Merge(minute.others, event);
      minute.others.identities = std::max(minute.others.identities, event.identities());
      continue;
    }
    Merge(minute.by_identity[{event.identity(), event.authentication()}], event);
  }
}

size_t DenialLedger::pending() const {
  absl::MutexLock lock(&mu_);
  size_t entries = 0;
  for (const auto& [start, minute] : minutes_) {
    entries += minute.by_identity.size() + (minute.others.rpcs.empty() ? 0 : 1);
  }
  return entries;
}

}  // namespace credledger::service
