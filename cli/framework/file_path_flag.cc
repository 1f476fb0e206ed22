#include "cli/framework/file_path_flag.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/quote_cut.h"

namespace credledger::cli {
namespace {

// Longest part of a refused path quoted in an error.
constexpr size_t kMaxShownPathBytes = 300;

}  // namespace

absl::Status CheckFilePathFlag(absl::string_view flag, const std::string& path) {
  std::error_code ignored;
  if (absl::EndsWith(path, "/") || std::filesystem::is_directory(path, ignored)) {
    return absl::InvalidArgumentError(absl::StrCat(flag, ": ",
                                                   common::QuoteCut(path, kMaxShownPathBytes),
                                                   " names a directory; give a file path"));
  }
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty() && !std::filesystem::is_directory(parent, ignored)) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": ", common::QuoteCut(parent.string(), kMaxShownPathBytes),
                     " is not an existing folder; create it first"));
  }
  return absl::OkStatus();
}

}  // namespace credledger::cli
