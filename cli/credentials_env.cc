#include "cli/credentials_env.h"

#include <algorithm>
#include <iterator>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace credledger::cli {
namespace {

bool IsCallerSet(absl::string_view name) {
  return std::any_of(std::begin(kCallerSetVariables), std::end(kCallerSetVariables),
                     [&](const char* set) { return name == set; });
}

bool IsSteering(absl::string_view name) {
  return absl::StartsWith(name, "TF_") || absl::StartsWith(name, "KUBE_");
}

bool UsableName(absl::string_view name) {
  return !name.empty() && name.find('=') == absl::string_view::npos &&
         name.find('\0') == absl::string_view::npos;
}

}  // namespace

CredentialsEnvironment BuildCredentialsEnvironment(
    const std::vector<std::string>& inherited,
    const std::vector<std::pair<std::string, std::string>>& files) {
  std::map<std::string, std::string> inherited_values;
  for (const std::string& entry : inherited) {
    const size_t equals = entry.find('=');
    if (equals == std::string::npos || equals == 0) continue;
    inherited_values.emplace(entry.substr(0, equals), entry.substr(equals + 1));
  }

  CredentialsEnvironment out;
  std::map<std::string, std::string> values = inherited_values;
  for (const auto& [name, value] : files) {
    if (!UsableName(name) || value.find('\0') != std::string::npos) {
      out.skipped.push_back(name);
    } else if (IsCallerSet(name)) {
      out.ignored_files.push_back(name);  // the inherited value, if any, stays
    } else {
      values[name] = value;
      if (IsSteering(name)) out.removed_from_files.push_back(name);
    }
  }
  for (const auto& [name, value] : inherited_values) {
    if (IsSteering(name) && !IsCallerSet(name)) out.removed_inherited.push_back(name);
  }
  std::erase_if(values, [](const auto& entry) {
    return IsSteering(entry.first) && !IsCallerSet(entry.first);
  });

  for (const auto& [name, value] : values) out.env.push_back(absl::StrCat(name, "=", value));
  for (std::vector<std::string>* names :
       {&out.removed_from_files, &out.ignored_files, &out.skipped}) {
    std::sort(names->begin(), names->end());
  }
  return out;
}

}  // namespace credledger::cli
