#include "service/identity_command_bus.h"

#include <string>
#include <utility>

#include "common/status_macros.h"
#include "projections/identity_state.h"
#include "service/identity_decider.h"
#include "service/prior_request.h"
#include "store/event_codec.h"

namespace credledger::service {

absl::Status FoldIdentityEvents(const std::vector<store::RecordedEvent>& events,
                                v1::IdentityState& state) {
  for (const store::RecordedEvent& recorded : events) {
    ASSIGN_OR_RETURN(v1::Event event, store::EventCodec::Default().Decode(recorded));
    projections::EvolveIdentity(
        state, event,
        {recorded.seq, recorded.stream_version, absl::FromUnixMicros(recorded.recorded_at_us)});
  }
  return absl::OkStatus();
}

IdentityCommandBus::IdentityCommandBus(store::EventStore* store) : store_(store) {}

absl::StatusOr<IdentityCommandBus::Fold> IdentityCommandBus::LoadFold(
    const std::string& name, const StreamReader& read) const {
  Fold fold;
  {
    absl::MutexLock lock(&mu_);
    auto cached = folds_.find(name);
    if (cached != folds_.end()) fold = cached->second;
  }
  int64_t from = 0;
  if (!fold.stream_hash.empty()) {
    // Re-read the cached fold's last event to check that the cache describes this log.
    from = fold.state.stream_version();
    ASSIGN_OR_RETURN(std::vector<store::RecordedEvent> first, read(from));
    if (first.empty() || first.front().stream_version != from ||
        first.front().stream_hash != fold.stream_hash) {
      fold = Fold();
      from = 0;
    } else {
      first.erase(first.begin());
      RETURN_IF_ERROR(FoldIdentityEvents(first, fold.state));
      if (!first.empty()) fold.stream_hash = first.back().stream_hash;
      from = fold.state.stream_version() + 1;
      if (first.empty()) return fold;
    }
  }
  while (true) {
    ASSIGN_OR_RETURN(std::vector<store::RecordedEvent> page, read(from));
    if (page.empty()) break;
    RETURN_IF_ERROR(FoldIdentityEvents(page, fold.state));
    fold.stream_hash = page.back().stream_hash;
    from = page.back().stream_version + 1;
  }
  return fold;
}

void IdentityCommandBus::Publish(const std::string& name, const Fold& fold) {
  if (fold.stream_hash.empty()) return;
  absl::MutexLock lock(&mu_);
  Fold& kept = folds_[name];
  if (kept.stream_hash.empty() || kept.state.stream_version() < fold.state.stream_version()) {
    kept = fold;
  }
}

absl::StatusOr<IdentityCommandResult> IdentityCommandBus::Execute(
    const IdentityCommand& command, const IdentityCommandContext& context) {
  if (context.request_id.empty()) {
    return absl::InvalidArgumentError("request_id: required on every mutating call");
  }
  const std::string stream = projections::IdentityStream(context.identity);
  const std::string name = IdentityCommandName(command);
  const store::EventCodec& codec = store::EventCodec::Default();
  IdentityCommandResult result;
  Fold after;
  RETURN_IF_ERROR(store_->Execute([&](store::WriteTransaction& tx) -> absl::Status {
    ASSIGN_OR_RETURN(Fold fold, LoadFold(context.identity, [&](int64_t from) {
                       return tx.ReadStream(stream, from);
                     }));
    ASSIGN_OR_RETURN(auto prior, FindPriorRequest(tx, context.request_id, stream, name));
    if (prior.has_value()) {
      result = {*std::move(prior), /*replayed=*/true, fold.state};
      after = std::move(fold);
      return absl::OkStatus();
    }

    ASSIGN_OR_RETURN(std::vector<v1::Event> decided,
                     DecideIdentity(command, fold.state, context));
    if (decided.empty()) {
      result.state = fold.state;
      after = std::move(fold);
      return absl::OkStatus();
    }

    const v1::EventMetadata metadata =
        CommandMetadata(context.actor, context.request_id, name);
    store::StreamAppend append{stream,
                               fold.stream_hash.empty()
                                   ? store::ExpectedVersion::NoStream()
                                   : store::ExpectedVersion::Exactly(fold.state.stream_version()),
                               {}};
    for (const v1::Event& event : decided) {
      ASSIGN_OR_RETURN(store::NewEvent encoded, codec.Encode(event, metadata));
      append.events.push_back(std::move(encoded));
    }
    ASSIGN_OR_RETURN(store::AppendResult appended,
                     tx.Append({context.request_id, {std::move(append)}}));
    RETURN_IF_ERROR(FoldIdentityEvents(appended.events, fold.state));
    fold.stream_hash = appended.events.back().stream_hash;
    result.state = fold.state;
    result.events = std::move(appended.events);
    after = std::move(fold);
    return absl::OkStatus();
  }));
  Publish(context.identity, after);
  return result;
}

absl::StatusOr<v1::IdentityState> IdentityCommandBus::LoadState(absl::string_view name) {
  const std::string stream = projections::IdentityStream(name);
  ASSIGN_OR_RETURN(Fold fold, LoadFold(std::string(name), [&](int64_t from) {
                     return store_->ReadStream(stream, from, 512);
                   }));
  Publish(std::string(name), fold);
  return std::move(fold.state);
}

}  // namespace credledger::service
