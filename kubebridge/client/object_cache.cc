#include "kubebridge/client/object_cache.h"

#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "kubebridge/client/json_util.h"

namespace credledger::kubebridge {
namespace {

std::string KeyOf(absl::string_view ns, absl::string_view name) {
  return absl::StrCat(ns, "/", name);
}

std::string KeyOf(const nlohmann::json& object) {
  return KeyOf(StringAt(object, {"metadata", "namespace"}), StringAt(object, {"metadata", "name"}));
}

int64_t VersionOf(const nlohmann::json& object) {
  int64_t version = 0;
  return absl::SimpleAtoi(StringAt(object, {"metadata", "resourceVersion"}), &version) &&
                 version >= 0
             ? version
             : -1;
}

// Whether a version `incoming` replaces one at `held`: a newer or equal one does; a
// tombstone is replaced only by a strictly newer one.
bool Replaces(int64_t incoming, int64_t held, bool held_deleted = false) {
  if (incoming < 0 || held < 0) return true;
  return held_deleted ? incoming > held : incoming >= held;
}

}  // namespace

class ObjectCache::Handler final : public WatchHandler {
 public:
  explicit Handler(ObjectCache* cache) : cache_(cache) {}

  absl::Status OnSync(const std::vector<nlohmann::json>& items, const std::string&) override {
    absl::MutexLock lock(&cache_->mu_);
    cache_->objects_.clear();
    cache_->objects_.reserve(items.size());
    for (const nlohmann::json& item : items) cache_->Put(item, /*only_if_newer=*/false);
    cache_->synced_ = true;
    return absl::OkStatus();
  }

  absl::Status OnEvent(const WatchEvent& event) override {
    bool changed = false;
    {
      absl::MutexLock lock(&cache_->mu_);
      switch (event.type) {
        case WatchEventType::kAdded:
        case WatchEventType::kModified:
          changed = cache_->Put(event.object, /*only_if_newer=*/true);
          break;
        case WatchEventType::kDeleted: {
          auto it = cache_->objects_.find(KeyOf(event.object));
          if (it != cache_->objects_.end() &&
              Replaces(VersionOf(event.object), it->second.object.resource_version)) {
            changed = !it->second.deleted;
            cache_->objects_.erase(it);
          }
          break;
        }
        case WatchEventType::kBookmark:
          break;
      }
    }
    if (changed && cache_->on_change_) {
      cache_->on_change_(StringAt(event.object, {"metadata", "namespace"}),
                         StringAt(event.object, {"metadata", "name"}));
    }
    return absl::OkStatus();
  }

  void OnError(const absl::Status& status) override {
    {
      absl::MutexLock lock(&cache_->mu_);
      cache_->last_error_ = status;
    }
    common::Log(common::LogLevel::kWarning, "cache watch failed; retrying",
                {{"collection", cache_->collection_.DebugString()}, {"error", status.ToString()}});
  }

 private:
  ObjectCache* cache_;
};

ObjectCache::ObjectCache(KubeClient* client, ResourceRef collection, ListWatchOptions options,
                         DigestFn digest, ChangeFn on_change)
    : client_(client),
      collection_(std::move(collection)),
      options_(std::move(options)),
      digest_(std::move(digest)),
      on_change_(std::move(on_change)),
      handler_(std::make_unique<Handler>(this)) {}

std::unique_ptr<ObjectCache> ObjectCache::Start(KubeClient* client, ResourceRef collection,
                                                ListWatchOptions options, DigestFn digest,
                                                ChangeFn on_change) {
  std::unique_ptr<ObjectCache> cache(new ObjectCache(
      client, std::move(collection), std::move(options), std::move(digest), std::move(on_change)));
  ObjectCache* c = cache.get();
  c->thread_ = std::thread([c] {
    RunListWatch(*c->client_, c->collection_, c->options_, *c->handler_, &c->stop_).IgnoreError();
  });
  return cache;
}

ObjectCache::~ObjectCache() { Stop(); }

void ObjectCache::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopped_ = true;
  }
  stop_.Cancel();
  if (thread_.joinable()) thread_.join();
}

bool ObjectCache::AwaitEntry(absl::string_view ns, absl::string_view name,
                             const std::function<bool(const std::optional<CachedObject>&)>& done,
                             absl::Duration timeout) const {
  const std::string key = KeyOf(ns, name);
  auto holds = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    auto it = objects_.find(key);
    return done(it == objects_.end() || it->second.deleted
                    ? std::nullopt
                    : std::optional<CachedObject>(it->second.object));
  };
  absl::MutexLock lock(&mu_);
  return mu_.AwaitWithTimeout(absl::Condition(&holds), timeout);
}

absl::Status ObjectCache::SyncStatus() const {
  absl::MutexLock lock(&mu_);
  if (synced_) return absl::OkStatus();
  return absl::UnavailableError(
      absl::StrCat("waiting for the first list of ", collection_.DebugString(),
                   last_error_.ok() ? "" : absl::StrCat(": ", last_error_.message())));
}

bool ObjectCache::WaitSynced(absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto done = [this]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return synced_ || stopped_; };
  mu_.AwaitWithTimeout(absl::Condition(&done), timeout);
  return synced_ && !stopped_;
}

std::optional<CachedObject> ObjectCache::Get(absl::string_view ns, absl::string_view name) const {
  absl::MutexLock lock(&mu_);
  auto it = objects_.find(KeyOf(ns, name));
  if (it == objects_.end() || it->second.deleted) return std::nullopt;
  return it->second.object;
}

void ObjectCache::Observe(const nlohmann::json& object) {
  absl::MutexLock lock(&mu_);
  Put(object, /*only_if_newer=*/true);
}

void ObjectCache::ObserveDeleted(absl::string_view ns, absl::string_view name) {
  absl::MutexLock lock(&mu_);
  auto it = objects_.find(KeyOf(ns, name));
  if (it != objects_.end()) it->second.deleted = true;
}

size_t ObjectCache::size() const {
  absl::MutexLock lock(&mu_);
  size_t live = 0;
  for (const auto& [key, entry] : objects_) live += entry.deleted ? 0 : 1;
  return live;
}

bool ObjectCache::Put(const nlohmann::json& object, bool only_if_newer) {
  const Entry entry{{VersionOf(object), digest_(object)}, false};
  auto [it, inserted] = objects_.try_emplace(KeyOf(object), entry);
  if (inserted) return true;
  Entry& held = it->second;
  if (only_if_newer &&
      !Replaces(entry.object.resource_version, held.object.resource_version, held.deleted)) {
    return false;
  }
  const bool changed = held.deleted || held.object.digest != entry.object.digest;
  held = entry;
  return changed;
}

}  // namespace credledger::kubebridge
