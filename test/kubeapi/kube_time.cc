#include "test/kubeapi/kube_time.h"

#include "absl/strings/str_cat.h"

namespace credledger::kubeapi {

std::string FormatKubeTime(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

std::string FormatHttpDate(absl::Time t) {
  return absl::FormatTime("%a, %d %b %Y %H:%M:%S GMT", t, absl::UTCTimeZone());
}

std::optional<absl::Time> ParseKubeTime(absl::string_view text) {
  absl::Time t;
  std::string err;
  if (!absl::ParseTime(absl::RFC3339_full, std::string(text), &t, &err)) return std::nullopt;
  return t;
}

std::string FormatAge(absl::Duration age) {
  int64_t s = absl::ToInt64Seconds(age);
  if (s < 0) s = 0;
  if (s < 120) return absl::StrCat(s, "s");
  if (s < 120 * 60) return absl::StrCat(s / 60, "m");
  if (s < 48 * 3600) return absl::StrCat(s / 3600, "h");
  return absl::StrCat(s / 86400, "d");
}

}  // namespace credledger::kubeapi
