// Server-side printing: the meta.k8s.io/v1 Table kubectl asks for with
// `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`.
//
// Columns: Name, then per kind (Secret: Type, Data; ConfigMap: Data; ServiceAccount:
// Secrets; Namespace: Status), then Age. Each row's `object` follows `includeObject`
// ("None", "Object", or the default "PartialObjectMetadata").
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "test/kubeapi/object_store.h"
#include "test/kubeapi/resource_registry.h"

namespace credledger::kubeapi {

// True when `accept` (an Accept header) asks for a Table.
bool WantsTable(const std::string& accept);

// A Table of `items` at `resource_version`, with ages relative to `now`.
nlohmann::json ToTable(const ResourceInfo& info, const std::vector<ObjectPtr>& items,
                       int64_t resource_version, const std::string& include_object,
                       absl::Time now);

}  // namespace credledger::kubeapi
