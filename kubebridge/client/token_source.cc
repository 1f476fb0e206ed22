#include "kubebridge/client/token_source.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace credledger::kubebridge {

TokenSource::TokenSource(std::string static_token, std::filesystem::path token_file)
    : static_token_(std::move(static_token)), token_file_(std::move(token_file)) {}

absl::StatusOr<std::string> TokenSource::Token() {
  if (token_file_.empty()) return static_token_;
  absl::MutexLock lock(&mu_);
  absl::Status failure;
  absl::StatusOr<common::FileStamp> stamp = common::StatFile(token_file_);
  if (!stamp.ok()) {
    failure = stamp.status();
  } else if (!stamp_.has_value() || *stamp_ != *stamp) {
    absl::StatusOr<std::string> content = common::ReadSmallFile(token_file_);
    ++file_reads_;
    if (!content.ok()) {
      failure = content.status();
    } else {
      absl::string_view trimmed = absl::StripAsciiWhitespace(*content);
      // An empty file is a rewrite in progress: keep the old value and look again next time.
      if (!trimmed.empty()) {
        file_token_ = std::string(trimmed);
        stamp_ = *stamp;
      }
    }
  }
  if (!file_token_.empty()) return file_token_;
  if (!static_token_.empty()) return static_token_;
  if (!failure.ok()) {
    return absl::Status(failure.code(), absl::StrCat("token file ", failure.message()));
  }
  return absl::FailedPreconditionError(
      absl::StrCat("token file \"", token_file_.string(), "\" is empty"));
}

int TokenSource::file_reads() const {
  absl::MutexLock lock(&mu_);
  return file_reads_;
}

}  // namespace credledger::kubebridge
