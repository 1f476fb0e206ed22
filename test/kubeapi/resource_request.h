// ResourceRequest: one authenticated, authorized request for a resource, as handed to the
// resource, token, review and watch handlers.
#pragma once

#include <string>

#include "test/kubeapi/http_types.h"
#include "test/kubeapi/request_info.h"
#include "test/kubeapi/resource_registry.h"
#include "test/kubeapi/user_info.h"

namespace credledger::kubeapi {

struct ResourceRequest {
  const HttpRequest* http = nullptr;  // REQUIRES: non-null, outlives the handler call
  RequestInfo info;
  ResourceInfo resource;
  UserInfo user;

  // The store namespace: the URL namespace for namespaced resources, "" otherwise.
  std::string StoreNamespace() const {
    return resource.namespaced && info.namespaced_path ? info.namespace_name : "";
  }
};

}  // namespace credledger::kubeapi
