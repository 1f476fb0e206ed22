#include "test/kubeapi/request_recorder.h"

#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"

namespace credledger::kubeapi {

void RequestRecorder::Record(const std::string& username, const AuthorizationAttributes& attrs,
                             int code, bool check) {
  std::string resource;
  std::string path;
  if (attrs.resource_request) {
    resource = attrs.subresource.empty() ? attrs.resource
                                         : absl::StrCat(attrs.resource, "/", attrs.subresource);
  } else {
    path = attrs.path;
  }
  Key key{username,
          attrs.resource_request ? attrs.group : "",
          std::move(resource),
          std::move(path),
          attrs.verb,
          code,
          check};
  absl::MutexLock lock(&mu_);
  ++counts_[std::move(key)];
}

std::vector<RequestCount> RequestRecorder::CountsOf(const std::string& username) const {
  std::vector<RequestCount> out;
  absl::MutexLock lock(&mu_);
  const Key first{username, "", "", "", "", std::numeric_limits<int>::min(), false};
  for (auto it = counts_.lower_bound(first);
       it != counts_.end() && std::get<0>(it->first) == username; ++it) {
    const auto& [user, group, resource, path, verb, code, check] = it->first;
    out.push_back(RequestCount{verb, group, resource, path, code, it->second, check});
  }
  return out;
}

}  // namespace credledger::kubeapi
