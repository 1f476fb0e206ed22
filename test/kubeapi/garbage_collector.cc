#include "test/kubeapi/garbage_collector.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "test/kubeapi/json_util.h"
#include "test/kubeapi/kube_status.h"
#include "test/kubeapi/object_rules.h"
#include "test/kubeapi/rbac.h"
#include "test/kubeapi/resource_handlers.h"

namespace credledger::kubeapi {
namespace {

// "v1" -> {"", "v1"}; "batch/v1" -> {"batch", "v1"}.
std::pair<std::string, std::string> SplitApiVersion(const std::string& api_version) {
  size_t slash = api_version.find('/');
  if (slash == std::string::npos) return {"", api_version};
  return {api_version.substr(0, slash), api_version.substr(slash + 1)};
}

}  // namespace

GarbageCollector::~GarbageCollector() { Stop(); }

int GarbageCollector::CollectGarbage() {
  absl::MutexLock sweep(&sweep_mu_);
  int deleted = 0;
  for (;;) {
    int pass = 0;
    for (const GroupResource& gr : ctx_->store.GroupResources()) {
      for (const ObjectPtr& object : ctx_->store.List(gr, "").items) {
        if (Collect(gr, *object)) ++pass;
      }
    }
    deleted += pass;
    if (pass == 0) return deleted;
  }
}

void GarbageCollector::Start(absl::Duration period) {
  thread_ = std::thread([this, period] { Run(period); });
}

void GarbageCollector::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    cv_.SignalAll();
  }
  if (thread_.joinable()) thread_.join();
}

void GarbageCollector::Run(absl::Duration period) {
  common::Clock& clock = *ctx_->config.clock;
  for (;;) {
    {
      absl::MutexLock lock(&mu_);
      if (!clock.SleepUntil(clock.Now() + period, mu_, cv_, stopping_)) return;
    }
    CollectGarbage();
  }
}

GarbageCollector::OwnerState GarbageCollector::StateOf(const nlohmann::json& reference,
                                                       const std::string& ns) const {
  if (!reference.is_object()) return OwnerState::kUnresolvable;
  const auto [group, version] = SplitApiVersion(StringField(reference, "apiVersion"));
  std::optional<ResourceInfo> owner =
      ctx_->registry.FindKind(group, version, StringField(reference, "kind"));
  if (!owner.has_value() || (owner->namespaced && ns.empty())) return OwnerState::kUnresolvable;
  absl::StatusOr<ObjectPtr> found =
      ctx_->store.Get(owner->gr(), owner->namespaced ? ns : "", StringField(reference, "name"));
  if (found.ok() && MetadataString(**found, "uid") == StringField(reference, "uid")) {
    return OwnerState::kExists;
  }
  return OwnerState::kAbsent;
}

bool GarbageCollector::Collect(const GroupResource& gr, const nlohmann::json& object) {
  const nlohmann::json& references = Field(Metadata(object), "ownerReferences");
  if (!references.is_array() || references.empty() ||
      !MetadataString(object, "deletionTimestamp").empty()) {
    return false;
  }
  const std::string ns = MetadataString(object, "namespace");
  nlohmann::json kept = nlohmann::json::array();
  bool any_absent = false;
  for (const nlohmann::json& reference : references) {
    switch (StateOf(reference, ns)) {
      case OwnerState::kUnresolvable:
        return false;
      case OwnerState::kExists:
        kept.push_back(reference);
        break;
      case OwnerState::kAbsent:
        any_absent = true;
        break;
    }
  }
  if (!any_absent) return false;
  return Write(gr, object, kept) && kept.empty();
}

bool GarbageCollector::Write(const GroupResource& gr, const nlohmann::json& object,
                             const nlohmann::json& kept) {
  const std::string ns = MetadataString(object, "namespace");
  const std::string name = MetadataString(object, "name");
  const std::string version = SplitApiVersion(StringField(object, "apiVersion")).second;
  const ResourceInfo info = ctx_->registry.Resolve(gr.group, version, gr.resource, !ns.empty());
  AuthorizationAttributes attrs;
  attrs.group = gr.group;
  attrs.resource = gr.resource;
  attrs.name = name;
  attrs.namespace_name = ns;
  absl::Status written;
  if (kept.empty()) {
    attrs.verb = "delete";
    const nlohmann::json options = {
        {"preconditions",
         {{"uid", MetadataString(object, "uid")},
          {"resourceVersion", MetadataString(object, "resourceVersion")}}}};
    written = DeleteObject(*ctx_, info, ns, name, options).status();
  } else {
    // The patch changes only ownerReferences: the remaining references keep their field
    // managers, and the collector sets no field (managed_fields.h).
    attrs.verb = "patch";
    nlohmann::json patched = object;
    patched["metadata"]["ownerReferences"] = kept;
    const WriteContext wctx{&info, version, ns, ctx_->config.clock->Now(), "", ""};
    written = ctx_->store
                  .Mutate(gr, ns, name,
                          [&](const nlohmann::json& current) {
                            return PrepareUpdate(wctx, name, current, patched,
                                                 /*status_subresource=*/false);
                          })
                  .status();
  }
  ctx_->requests.Record(kGarbageCollectorUser, attrs,
                        written.ok() ? 200 : StatusToReply(written).code);
  return written.ok();
}

}  // namespace credledger::kubeapi
