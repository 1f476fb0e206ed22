// Rights of RBAC rules for the manifest tests: one (apiGroup, resource, verb) per right, the
// rights a role's `rules` grant, and a readable list of them.
#pragma once

#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace credledger::rbac_manifest_test {

// A right: (apiGroup, resource or "resource/subresource", verb).
using Right = std::tuple<std::string, std::string, std::string>;

inline std::string Describe(const std::set<Right>& rights) {
  std::vector<std::string> out;
  for (const auto& [group, resource, verb] : rights) {
    out.push_back(absl::StrCat(group.empty() ? "core" : group, " ", resource, " ", verb));
  }
  return out.empty() ? "none" : absl::StrJoin(out, "; ");
}

// The rights rbac/v1 `rules` grant, one per apiGroup × resource × verb. A rule limited by
// resourceNames grants the right on fewer objects; it still counts as that right. Wildcards
// and nonResourceURLs fail the test: a role of exact rights names each one.
inline std::set<Right> RightsOf(const nlohmann::json& rules, const std::string& role) {
  std::set<Right> rights;
  for (const nlohmann::json& rule : rules) {
    EXPECT_FALSE(rule.contains("nonResourceURLs")) << role << ": " << rule.dump();
    for (const nlohmann::json& group : rule.value("apiGroups", nlohmann::json::array())) {
      for (const nlohmann::json& resource : rule.value("resources", nlohmann::json::array())) {
        for (const nlohmann::json& verb : rule.value("verbs", nlohmann::json::array())) {
          EXPECT_TRUE(group != "*" && resource != "*" && verb != "*")
              << role << " uses a wildcard: " << rule.dump();
          rights.insert(
              {group.get<std::string>(), resource.get<std::string>(), verb.get<std::string>()});
        }
      }
    }
  }
  return rights;
}

}  // namespace credledger::rbac_manifest_test
