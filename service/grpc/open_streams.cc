#include "service/grpc/open_streams.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace credledger::service {

OpenStreams::Ticket::~Ticket() { streams_->Release(caller_, stream_); }

absl::StatusOr<std::unique_ptr<OpenStreams::Ticket>> OpenStreams::Admit(absl::string_view caller,
                                                                        absl::string_view rpc,
                                                                        OpenStream* stream) {
  absl::MutexLock lock(&mu_);
  if (stopped_) {
    return absl::UnavailableError(absl::StrCat(rpc, ": the server is shutting down"));
  }
  const auto it = per_caller_.find(caller);
  const size_t of_caller = it == per_caller_.end() ? 0 : it->second;
  if (of_caller >= limits_.max_streams_per_caller) {
    return absl::ResourceExhaustedError(absl::StrCat(
        rpc, ": caller \"", caller, "\" already has ", of_caller,
        " open streams, the limit per caller (--max-streams-per-caller); close one first"));
  }
  if (streams_.size() >= limits_.max_streams) {
    return absl::ResourceExhaustedError(
        absl::StrCat(rpc, ": the server already has ", streams_.size(),
                     " open streams, its limit (--max-streams); try again later"));
  }
  ++per_caller_[std::string(caller)];
  streams_.emplace(stream, std::string(rpc));
  return std::unique_ptr<Ticket>(new Ticket(this, std::string(caller), stream));
}

void OpenStreams::StopAll(const std::function<absl::Status(absl::string_view rpc)>& status_for) {
  std::vector<std::pair<OpenStream*, std::string>> open;
  {
    absl::MutexLock lock(&mu_);
    stopped_ = true;
    for (const auto& [stream, rpc] : streams_) {
      stream->Ref();
      open.emplace_back(stream, rpc);
    }
  }
  for (const auto& [stream, rpc] : open) {
    stream->Stop(status_for(rpc));
    stream->Unref();
  }
}

size_t OpenStreams::open() const {
  absl::MutexLock lock(&mu_);
  return streams_.size();
}

void OpenStreams::Release(const std::string& caller, OpenStream* stream) {
  bool release = false;
  {
    absl::MutexLock lock(&mu_);
    streams_.erase(stream);
    const auto it = per_caller_.find(caller);
    if (it != per_caller_.end() && --it->second == 0) per_caller_.erase(it);
    ++ended_since_release_;
    release = ended_since_release_ >= kStreamsPerRelease || streams_.empty();
    if (release) ended_since_release_ = 0;
  }
  if (release && release_memory_) release_memory_();
}

}  // namespace credledger::service
