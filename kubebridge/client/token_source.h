// TokenSource: the bearer token of a connection, re-read from its token file whenever the file
// changes (docs/design.md, "Client"; docs/kubernetes.md,
// "serve: cluster connection and flags").
//
// With a token file, each Token() call stats the file and re-reads it when its device,
// inode, size or modification time differ from the last successful read, so a rotated
// token (Flux rewriting a mounted Secret, kubelet refreshing a projected service-account
// token through a symlink swap) is used on the next request without a restart. The last
// successfully read, non-empty file content wins over the static token; while the file is
// missing, unreadable or empty, the last good value (or the static token) stays in use.
//
// Thread-safety: Token() may be called concurrently. Tokens never appear in messages.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/file_util.h"

namespace credledger::kubebridge {

class TokenSource {
 public:
  // `static_token` may be empty (no token unless the file provides one); `token_file` may be
  // empty (no file).
  TokenSource(std::string static_token, std::filesystem::path token_file);

  // Returns the token to send, or "" when the connection has no bearer token.
  // Errors: kFailedPrecondition (or kNotFound when the file is missing) when a token file is
  // configured, cannot be read now, and no token was ever available (neither a static one
  // nor an earlier read); the message names the file.
  absl::StatusOr<std::string> Token();

  // How many times the file content was read; lets tests see that an unchanged file is not
  // read again.
  int file_reads() const;

 private:
  const std::string static_token_;
  const std::filesystem::path token_file_;
  mutable absl::Mutex mu_;
  std::optional<common::FileStamp> stamp_ ABSL_GUARDED_BY(mu_);
  std::string file_token_ ABSL_GUARDED_BY(mu_);
  int file_reads_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace credledger::kubebridge
