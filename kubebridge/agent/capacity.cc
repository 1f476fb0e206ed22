#include "kubebridge/agent/capacity.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "kubebridge/agent/quantity.h"
#include "kubebridge/client/json_util.h"

namespace credledger::kubebridge {
namespace {

using ResourceSums = std::map<std::string, Quantity>;

// Collects the skip lines of one CapacityFrom call.
class Skips {
 public:
  explicit Skips(std::vector<std::string>* out) : out_(out) {}
  void Add(absl::string_view object, absl::string_view path, absl::string_view reason) {
    if (out_ != nullptr) out_->push_back(absl::StrCat(object, ": ", path, ": ", reason));
  }

 private:
  std::vector<std::string>* out_;
};

// Where a value came from, for skip lines: `object` ("pod \"ns/name\"") and the field path.
struct Origin {
  std::string object;
  std::string path;
};

// The member `key` of `value`; nullptr when `value` is no object or the member is absent or
// null.
const nlohmann::json* Member(const nlohmann::json* value, const char* key) {
  if (value == nullptr || !value->is_object()) return nullptr;
  auto it = value->find(key);
  return it == value->end() || it->is_null() ? nullptr : &*it;
}

// sums[resource] += q; skipped (with the reason) when the sum would leave the range.
void AddOne(ResourceSums& sums, const std::string& resource, const Quantity& q,
            const Origin& origin, Skips& skips) {
  auto [it, inserted] = sums.try_emplace(resource, q);
  if (inserted) return;
  absl::StatusOr<Quantity> sum = AddQuantities(it->second, q);
  if (!sum.ok()) {
    skips.Add(origin.object, absl::StrCat(origin.path, ".", resource), sum.status().message());
    return;
  }
  it->second = *sum;
}

void AddAll(ResourceSums& sums, const ResourceSums& addend, const Origin& origin, Skips& skips) {
  for (const auto& [resource, q] : addend) AddOne(sums, resource, q, origin, skips);
}

// sums[resource] = max(sums[resource], q) for every entry of `other`.
void MaxAll(ResourceSums& sums, const ResourceSums& other) {
  for (const auto& [resource, q] : other) {
    auto [it, inserted] = sums.try_emplace(resource, q);
    if (!inserted && q.nanos > it->second.nanos) it->second = q;
  }
}

// The quantities of the ResourceList `list` (a JSON object resource -> quantity string).
ResourceSums ReadList(const nlohmann::json* list, const Origin& origin, Skips& skips) {
  ResourceSums out;
  if (list == nullptr) return out;
  if (!list->is_object()) {
    skips.Add(origin.object, origin.path, "want an object of quantities");
    return out;
  }
  for (const auto& [resource, value] : list->items()) {
    const std::string path = absl::StrCat(origin.path, ".", resource);
    if (!value.is_string()) {
      skips.Add(origin.object, path, "want a quantity string");
      continue;
    }
    absl::StatusOr<Quantity> q = ParseQuantity(value.get_ref<const std::string&>());
    if (!q.ok()) {
      skips.Add(origin.object, path, q.status().message());
      continue;
    }
    AddOne(out, resource, *q, origin, skips);
  }
  return out;
}

// The elements of the array at `field` (path `path`); empty when absent or not an array.
std::vector<const nlohmann::json*> Elements(const nlohmann::json* field, const std::string& object,
                                            absl::string_view path, Skips& skips) {
  std::vector<const nlohmann::json*> out;
  if (field == nullptr) return out;
  if (!field->is_array()) {
    skips.Add(object, path, "want an array");
    return out;
  }
  for (const nlohmann::json& element : *field) out.push_back(&element);
  return out;
}

// The requests of container `container` at `path` (e.g. "spec.containers[0]").
ResourceSums ContainerRequests(const nlohmann::json* container, const std::string& object,
                               const std::string& path, Skips& skips) {
  return ReadList(Member(Member(container, "resources"), "requests"),
                  {object, absl::StrCat(path, ".resources.requests")}, skips);
}

// The requests of one pod as the scheduler counts them (see capacity.h).
ResourceSums PodRequests(const nlohmann::json& pod, const std::string& object, Skips& skips) {
  const nlohmann::json* spec = Member(&pod, "spec");
  ResourceSums requests;
  int index = 0;
  for (const nlohmann::json* c :
       Elements(Member(spec, "containers"), object, "spec.containers", skips)) {
    const std::string path = absl::StrCat("spec.containers[", index++, "]");
    AddAll(requests, ContainerRequests(c, object, path, skips), {object, path}, skips);
  }
  ResourceSums sidecars;
  ResourceSums init_peak;
  index = 0;
  for (const nlohmann::json* c :
       Elements(Member(spec, "initContainers"), object, "spec.initContainers", skips)) {
    const std::string path = absl::StrCat("spec.initContainers[", index++, "]");
    const Origin origin{object, path};
    ResourceSums own = ContainerRequests(c, object, path, skips);
    const nlohmann::json* policy = Member(c, "restartPolicy");
    if (policy != nullptr && policy->is_string() && *policy == "Always") {
      AddAll(requests, own, origin, skips);
      AddAll(sidecars, own, origin, skips);
      MaxAll(init_peak, sidecars);
    } else {
      AddAll(own, sidecars, origin, skips);
      MaxAll(init_peak, own);
    }
  }
  MaxAll(requests, init_peak);
  const Origin overhead{object, "spec.overhead"};
  AddAll(requests, ReadList(Member(spec, "overhead"), overhead, skips), overhead, skips);
  return requests;
}

std::string ObjectLabel(absl::string_view kind, const nlohmann::json& object) {
  const std::string ns = StringAt(object, {"metadata", "namespace"});
  const std::string name = StringAt(object, {"metadata", "name"});
  return absl::StrCat(kind, " \"", ns.empty() ? "" : absl::StrCat(ns, "/"), name, "\"");
}

void Fill(const ResourceSums& sums, google::protobuf::RepeatedPtrField<v1::ResourceQuantity>* out) {
  for (const auto& [resource, q] : sums) {
    v1::ResourceQuantity* entry = out->Add();
    entry->set_resource(resource);
    entry->set_quantity(FormatQuantity(q));
  }
}

// Sums status.allocatable over `nodes`; returns the number of Node objects.
int64_t SumAllocatable(const nlohmann::json& nodes, ResourceSums& allocatable, Skips& skips) {
  int64_t node_count = 0;
  int index = 0;
  for (const nlohmann::json* node : Elements(&nodes, "nodes", "list", skips)) {
    const std::string path = absl::StrCat("list[", index++, "]");
    if (!node->is_object()) {
      skips.Add("nodes", path, "want an object");
      continue;
    }
    ++node_count;
    const Origin origin{ObjectLabel("node", *node), "status.allocatable"};
    AddAll(allocatable, ReadList(Member(Member(node, "status"), "allocatable"), origin, skips),
           origin, skips);
  }
  return node_count;
}

// Sums the requests of the Running pods among `pods`.
void SumRunningRequests(const nlohmann::json& pods, ResourceSums& used, Skips& skips) {
  int index = 0;
  for (const nlohmann::json* pod : Elements(&pods, "pods", "list", skips)) {
    const std::string path = absl::StrCat("list[", index++, "]");
    if (!pod->is_object()) {
      skips.Add("pods", path, "want an object");
      continue;
    }
    if (StringAt(*pod, {"status", "phase"}) != "Running") continue;
    const std::string object = ObjectLabel("pod", *pod);
    AddAll(used, PodRequests(*pod, object, skips), {object, "requests"}, skips);
  }
}

}  // namespace

v1::ClusterCapacity CapacityFrom(const nlohmann::json& nodes, const nlohmann::json& pods,
                                 std::vector<std::string>* skipped) {
  Skips skips(skipped);
  ResourceSums allocatable;
  ResourceSums used;
  const int64_t node_count = SumAllocatable(nodes, allocatable, skips);
  SumRunningRequests(pods, used, skips);
  v1::ClusterCapacity capacity;
  capacity.set_node_count(
      static_cast<int32_t>(std::min<int64_t>(node_count, std::numeric_limits<int32_t>::max())));
  Fill(allocatable, capacity.mutable_allocatable());
  Fill(used, capacity.mutable_used());
  return capacity;
}

}  // namespace credledger::kubebridge
