#include "test/kubeapi/object_store.h"

#include "absl/strings/str_cat.h"
#include "test/kubeapi/json_util.h"
#include "test/kubeapi/kube_status.h"

namespace credledger::kubeapi {
namespace {

std::string NameOf(const nlohmann::json& object) { return MetadataString(object, "name"); }

}  // namespace

ObjectStore::ObjectStore(int64_t history_limit, absl::Duration history_window)
    : history_limit_(history_limit), history_window_(history_window) {}

ObjectPtr ObjectStore::Commit(StoreEventType type, const GroupResource& gr,
                              const std::string& ns, nlohmann::json object,
                              ObjectPtr previous) {
  ++resource_version_;
  object["metadata"]["resourceVersion"] = absl::StrCat(resource_version_);
  auto stored = std::make_shared<const nlohmann::json>(std::move(object));
  const absl::Time now = absl::Now();
  history_.push_back({resource_version_, type, gr, ns, stored, std::move(previous), now});
  while (static_cast<int64_t>(history_.size()) > history_limit_ &&
         history_.front().recorded_at <= now - history_window_) {
    history_.pop_front();
  }
  return stored;
}

absl::StatusOr<ObjectPtr> ObjectStore::Create(const GroupResource& gr, const std::string& ns,
                                              nlohmann::json object) {
  std::string name = NameOf(object);
  absl::MutexLock lock(&mu_);
  Table& table = tables_[gr];
  if (table.count({ns, name}) > 0) return AlreadyExistsError(gr, name);
  ObjectPtr stored = Commit(StoreEventType::kAdded, gr, ns, std::move(object), nullptr);
  table[{ns, name}] = stored;
  return stored;
}

absl::StatusOr<ObjectPtr> ObjectStore::Get(const GroupResource& gr, const std::string& ns,
                                           const std::string& name) const {
  absl::ReaderMutexLock lock(&mu_);
  auto t = tables_.find(gr);
  if (t != tables_.end()) {
    auto it = t->second.find({ns, name});
    if (it != t->second.end()) return it->second;
  }
  return NotFoundError(gr, name);
}

ListSnapshot ObjectStore::List(const GroupResource& gr, const std::string& ns) const {
  absl::ReaderMutexLock lock(&mu_);
  ListSnapshot snapshot;
  snapshot.resource_version = resource_version_;
  auto t = tables_.find(gr);
  if (t == tables_.end()) return snapshot;
  for (const auto& [key, object] : t->second) {
    if (ns.empty() || key.first == ns) snapshot.items.push_back(object);
  }
  return snapshot;
}

std::vector<GroupResource> ObjectStore::GroupResources() const {
  absl::ReaderMutexLock lock(&mu_);
  std::vector<GroupResource> out;
  for (const auto& [gr, table] : tables_) {
    if (!table.empty()) out.push_back(gr);
  }
  return out;
}

absl::StatusOr<MutationResult> ObjectStore::Mutate(const GroupResource& gr,
                                                   const std::string& ns,
                                                   const std::string& name,
                                                   const MutateFn& fn) {
  absl::MutexLock lock(&mu_);
  Table& table = tables_[gr];
  auto it = table.find({ns, name});
  if (it == table.end()) return NotFoundError(gr, name);
  absl::StatusOr<Mutation> decision = fn(*it->second);
  if (!decision.ok()) return decision.status();
  MutationResult result;
  switch (decision->kind) {
    case Mutation::Kind::kKeep:
      result.object = it->second;
      break;
    case Mutation::Kind::kReplace:
      result.object = Commit(StoreEventType::kModified, gr, ns, std::move(decision->object),
                             it->second);
      result.changed = true;
      it->second = result.object;
      break;
    case Mutation::Kind::kDelete:
      result.object = Commit(StoreEventType::kDeleted, gr, ns, *it->second, it->second);
      result.changed = true;
      result.deleted = true;
      table.erase(it);
      break;
  }
  return result;
}

void ObjectStore::DeleteNamespaceContents(const std::string& ns) {
  if (ns.empty()) return;
  absl::MutexLock lock(&mu_);
  for (auto& [gr, table] : tables_) {
    for (auto it = table.begin(); it != table.end();) {
      if (it->first.first != ns) {
        ++it;
        continue;
      }
      Commit(StoreEventType::kDeleted, gr, ns, *it->second, it->second);
      it = table.erase(it);
    }
  }
}

int64_t ObjectStore::CurrentResourceVersion() const {
  absl::ReaderMutexLock lock(&mu_);
  return resource_version_;
}

EventBatch ObjectStore::EventsAfter(int64_t after, size_t max) const {
  absl::ReaderMutexLock lock(&mu_);
  EventBatch batch;
  batch.oldest_resumable =
      history_.empty() ? resource_version_ : history_.front().resource_version - 1;
  if (after < batch.oldest_resumable) {
    batch.expired = true;
    return batch;
  }
  if (history_.empty() || after >= resource_version_) return batch;
  size_t index = static_cast<size_t>(after - history_.front().resource_version + 1);
  for (; index < history_.size() && batch.events.size() < max; ++index) {
    batch.events.push_back(history_[index]);
  }
  return batch;
}

void ObjectStore::AwaitActivity(int64_t after, uint64_t bookmark_generation,
                                absl::Time deadline) const {
  auto ready = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return shut_down_ || resource_version_ > after ||
           bookmark_generation_ != bookmark_generation;
  };
  absl::ReaderMutexLock lock(&mu_);
  mu_.AwaitWithDeadline(absl::Condition(&ready), deadline);
}

void ObjectStore::AwaitShutdown(absl::Time deadline) const {
  absl::ReaderMutexLock lock(&mu_);
  mu_.AwaitWithDeadline(absl::Condition(&shut_down_), deadline);
}

uint64_t ObjectStore::BookmarkGeneration() const {
  absl::ReaderMutexLock lock(&mu_);
  return bookmark_generation_;
}

void ObjectStore::RequestBookmarks() {
  absl::MutexLock lock(&mu_);
  ++bookmark_generation_;
}

void ObjectStore::Shutdown() {
  absl::MutexLock lock(&mu_);
  shut_down_ = true;
}

bool ObjectStore::IsShutDown() const {
  absl::ReaderMutexLock lock(&mu_);
  return shut_down_;
}

}  // namespace credledger::kubeapi
