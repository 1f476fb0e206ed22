#include "service/offline/audit_api.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/dns_label.h"
#include "common/status_macros.h"
#include "projections/credential_lifetimes.h"
#include "projections/credential_projector.h"
#include "projections/identity_state.h"
#include "projections/proto_time.h"
#include "projections/report_streams.h"
#include "projections/state_diff.h"
#include "projections/status_projector.h"
#include "projections/target_state.h"
#include "projections/timeline.h"
#include "projections/timestamp_validation.h"
#include "service/decide/validation.h"
#include "service/offline/event_pages_internal.h"
#include "service/offline/status_view.h"
#include "service/offline/target_view.h"

namespace credledger::service {
namespace {

constexpr int32_t kDefaultTimelineLimit = 1000;
constexpr int32_t kMaxTimelineLimit = 10000;
constexpr char kTargetStreamPrefix[] = "target/";
constexpr char kLivenessStream[] = "liveness";

// Namespace and name of a selection: both empty (all), a namespace, or one Target.
absl::Status ValidateSelection(absl::string_view target_namespace, absl::string_view name) {
  if (!target_namespace.empty()) RETURN_IF_ERROR(ValidateDnsLabel("namespace", target_namespace));
  if (name.empty()) return absl::OkStatus();
  if (target_namespace.empty()) return absl::InvalidArgumentError("name: requires namespace");
  return ValidateDnsLabel("name", name);
}

// The target-stream selection of a Target, a namespace or the fleet.
store::EventFilter TargetStreams(absl::string_view target_namespace, absl::string_view name) {
  store::EventFilter filter;
  if (!name.empty()) {
    filter.stream = projections::TargetStream(target_namespace, name);
  } else if (!target_namespace.empty()) {
    filter.stream_prefix = absl::StrCat(kTargetStreamPrefix, target_namespace, "/");
  } else {
    filter.stream_prefix = kTargetStreamPrefix;
  }
  return filter;
}

// Calls `fold` on every event `filter` selects after `after_seq` (and up to its until_seq),
// page by page. An empty selection up to seq 0 reads nothing.
template <typename Fold>
absl::Status ForEachEvent(store::EventStore& store, const store::EventFilter& filter,
                          int64_t after_seq, Fold fold) {
  EventPages pages(&store, filter, after_seq);
  while (!pages.done()) {
    ASSIGN_OR_RETURN(std::vector<store::RecordedEvent> page, pages.Next());
    for (const store::RecordedEvent& event : page) RETURN_IF_ERROR(fold(event));
  }
  return absl::OkStatus();
}

// Reads the events of several streams in seq order, a page per stream at a time.
class MergedStreams {
 public:
  MergedStreams(store::EventStore* store, std::vector<std::string> streams) {
    for (std::string& s : streams) {
      store::EventFilter filter;
      filter.stream = std::move(s);
      cursors_.push_back(Cursor{EventPages(store, std::move(filter), 0), {}, 0});
    }
  }

  // The next event by seq; nullopt when every stream is exhausted.
  absl::StatusOr<std::optional<store::RecordedEvent>> Next() {
    Cursor* best = nullptr;
    for (Cursor& c : cursors_) {
      RETURN_IF_ERROR(Fill(c));
      if (c.next < c.page.size() &&
          (best == nullptr || c.page[c.next].seq < best->page[best->next].seq)) {
        best = &c;
      }
    }
    if (best == nullptr) return std::optional<store::RecordedEvent>();
    return std::optional<store::RecordedEvent>(std::move(best->page[best->next++]));
  }

 private:
  struct Cursor {
    EventPages pages;
    std::vector<store::RecordedEvent> page;
    size_t next;
  };

  absl::Status Fill(Cursor& c) {
    if (c.next < c.page.size() || c.pages.done()) return absl::OkStatus();
    ASSIGN_OR_RETURN(c.page, c.pages.Next());
    c.next = 0;
    return absl::OkStatus();
  }

  std::vector<Cursor> cursors_;
};

using ProjectionsAt = std::pair<projections::CredentialProjection, projections::StatusProjection>;

// The credential and status projections as of `seq`, folded side by side from the snapshots
// `snapshots` verifies (projections::AsOfTogether). Errors: kDataLoss for undecodable events
// or snapshots; store reads.
absl::StatusOr<ProjectionsAt> StateAt(store::EventStore* store, int64_t seq,
                                      projections::SnapshotGuard* snapshots) {
  return projections::AsOfTogether<projections::CredentialProjection,
                                   projections::StatusProjection>(store, seq, snapshots);
}

}  // namespace

AuditApi::AuditApi(store::EventStore* store, const audit::SigningKey* signing_key,
                   common::Clock* clock, projections::SnapshotGuard* snapshots,
                   const store::EventCodec* codec)
    : store_(store),
      signing_key_(signing_key),
      clock_(clock),
      snapshots_(snapshots),
      codec_(codec) {}

absl::StatusOr<int64_t> AuditApi::Resolve(const v1::LogPoint& point, absl::string_view field) {
  const int64_t head = store_->HeadSeq();
  switch (point.point_case()) {
    case v1::LogPoint::kSeq:
      if (point.seq() < 0 || point.seq() > head) {
        return absl::InvalidArgumentError(
            absl::StrCat(field, ".seq: ", point.seq(), " is outside 0..", head, " (the head)"));
      }
      return point.seq();
    case v1::LogPoint::kTime: {
      RETURN_IF_ERROR(projections::ValidateTimestamp(absl::StrCat(field, ".time"), point.time()));
      ASSIGN_OR_RETURN(int64_t seq,
                       store_->SeqAtTime(absl::ToUnixMicros(projections::FromProto(point.time()))));
      return std::min(seq, head);
    }
    case v1::LogPoint::POINT_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError(absl::StrCat(field, ": required (a seq or a time)"));
}

absl::StatusOr<std::unique_ptr<ExportCursor>> AuditApi::StartExport(
    const v1::ExportEventsRequest& request) {
  return ExportCursor::Start(store_, signing_key_, *clock_, *codec_, request);
}

absl::Status AuditApi::ExportEvents(
    const v1::ExportEventsRequest& request,
    const std::function<bool(const v1::ExportEventsResponse&)>& write) {
  ASSIGN_OR_RETURN(std::unique_ptr<ExportCursor> cursor, StartExport(request));
  while (true) {
    ASSIGN_OR_RETURN(std::optional<v1::ExportEventsResponse> message, cursor->Next());
    if (!message.has_value()) return absl::OkStatus();
    if (!write(*message)) return absl::CancelledError("export: the client went away");
  }
}

absl::StatusOr<v1::GetStateAtResponse> AuditApi::GetStateAt(const v1::GetStateAtRequest& request) {
  RETURN_IF_ERROR(ValidateSelection(request.namespace_(), request.name()));
  ASSIGN_OR_RETURN(int64_t seq, Resolve(request.as_of(), "as_of"));
  ASSIGN_OR_RETURN(ProjectionsAt at, StateAt(store_, seq, snapshots_));
  const projections::CredentialProjection& credentials = at.first;
  const projections::StatusProjection& statuses = at.second;

  v1::GetStateAtResponse response;
  response.set_seq(seq);
  ASSIGN_OR_RETURN(std::optional<store::RecordedEvent> event, store_->ReadEvent(seq));
  if (event.has_value()) {
    *response.mutable_recorded_at() =
        projections::ToProto(absl::FromUnixMicros(event->recorded_at_us));
  }
  if (credentials.service().ByteSizeLong() > 0) *response.mutable_service() = credentials.service();
  for (const v1::TargetState& state :
       credentials.List(request.namespace_(), /*include_finalized=*/true)) {
    if (!request.name().empty() && state.name() != request.name()) continue;
    *response.add_targets() = ToTargetView(state, credentials.service().connection_hash());
    if (std::optional<v1::TargetStatus> status = statuses.Get(state.namespace_(), state.name())) {
      *response.add_statuses() = ToStatusView(*status);
    }
  }
  if (!request.name().empty() && response.targets_size() == 0) {
    return absl::NotFoundError(absl::StrCat("Target ", request.namespace_(), "/", request.name(),
                                            " did not exist at seq ", seq));
  }
  return response;
}

absl::StatusOr<v1::TimelineResponse> AuditApi::Timeline(const v1::TimelineRequest& request) {
  const bool identity = !request.identity().empty();
  if (identity) {
    if (!request.namespace_().empty() || !request.name().empty()) {
      return absl::InvalidArgumentError(
          "identity: give either an identity or a Target's namespace and name, not both");
    }
    RETURN_IF_ERROR(common::ValidateDnsSubdomain("identity", request.identity()));
  } else {
    RETURN_IF_ERROR(ValidateDnsLabel("namespace", request.namespace_()));
    RETURN_IF_ERROR(ValidateDnsLabel("name", request.name()));
  }
  if (request.limit() < 0 || request.limit() > kMaxTimelineLimit) {
    return absl::InvalidArgumentError(
        absl::StrCat("limit: must be 0..", kMaxTimelineLimit, " (0: ", kDefaultTimelineLimit, ")"));
  }
  if (request.after_seq() < 0) return absl::InvalidArgumentError("after_seq: negative");
  const int32_t limit = request.limit() == 0 ? kDefaultTimelineLimit : request.limit();

  // A Target's builder needs its liveness facts from the start, so every page folds the
  // streams from the beginning and keeps the entries after `after_seq`.
  MergedStreams events(
      store_, identity ? std::vector<std::string>{projections::IdentityStream(request.identity())}
                       : std::vector<std::string>{
                             projections::TargetStream(request.namespace_(), request.name()),
                             projections::ReportStream(request.namespace_(), request.name()),
                             kLivenessStream});
  projections::TimelineBuilder builder =
      identity ? projections::TimelineBuilder::ForIdentity(request.identity())
               : projections::TimelineBuilder(request.namespace_(), request.name());
  v1::TimelineResponse response;
  bool any = false;
  while (true) {
    ASSIGN_OR_RETURN(std::optional<store::RecordedEvent> event, events.Next());
    if (!event.has_value()) break;
    if (event->stream != kLivenessStream) any = true;
    ASSIGN_OR_RETURN(std::optional<v1::TimelineEntry> entry, builder.Apply(*event));
    if (!entry.has_value() || entry->seq() <= request.after_seq()) continue;
    if (response.entries_size() == limit) {
      response.set_next_after_seq(response.entries(limit - 1).seq());
      break;
    }
    *response.add_entries() = *std::move(entry);
  }
  if (!any) {
    return absl::NotFoundError(
        identity
            ? absl::StrCat("identity \"", request.identity(), "\" has no events")
            : absl::StrCat("Target ", request.namespace_(), "/", request.name(), " has no events"));
  }
  return response;
}

absl::StatusOr<v1::DiffResponse> AuditApi::Diff(const v1::DiffRequest& request) {
  RETURN_IF_ERROR(ValidateSelection(request.namespace_(), request.name()));
  ASSIGN_OR_RETURN(int64_t from, Resolve(request.from(), "from"));
  ASSIGN_OR_RETURN(int64_t to, Resolve(request.to(), "to"));
  if (to < from) {
    return absl::InvalidArgumentError(absl::StrCat("to: seq ", to, " is before from seq ", from));
  }
  ASSIGN_OR_RETURN(ProjectionsAt from_state, StateAt(store_, from, snapshots_));
  ASSIGN_OR_RETURN(ProjectionsAt to_state, StateAt(store_, to, snapshots_));
  const projections::CredentialProjection& from_credentials = from_state.first;
  const projections::StatusProjection& from_status = from_state.second;
  const projections::CredentialProjection& to_credentials = to_state.first;
  const projections::StatusProjection& to_status = to_state.second;

  projections::StateDiff diff(request.namespace_(), request.name());
  store::EventFilter between = TargetStreams(request.namespace_(), request.name());
  between.until_seq = to;
  if (to > from) {
    RETURN_IF_ERROR(ForEachEvent(*store_, between, from, [&](const store::RecordedEvent& e) {
      return diff.ApplyBetween(e);
    }));
  }
  v1::DiffResponse response;
  response.set_from_seq(from);
  response.set_to_seq(to);
  for (v1::StateChange& change :
       diff.Finish(from_credentials, from_status, to_credentials, to_status)) {
    *response.add_changes() = std::move(change);
  }
  return response;
}

absl::StatusOr<v1::ValidCredentialsAtResponse> AuditApi::ValidCredentialsAt(
    const v1::ValidCredentialsAtRequest& request) {
  RETURN_IF_ERROR(ValidateSelection(request.namespace_(), request.name()));
  if (!request.has_time()) return absl::InvalidArgumentError("time: required");
  RETURN_IF_ERROR(projections::ValidateTimestamp("time", request.time()));
  const int64_t head = store_->HeadSeq();
  store::EventFilter filter = TargetStreams(request.namespace_(), request.name());
  filter.until_seq = head;
  filter.types = {
      v1::CredentialIssued::descriptor()->full_name(),
      v1::CredentialSecretDeleted::descriptor()->full_name(),
      v1::CredentialSecretDeletedExternally::descriptor()->full_name(),
      v1::StaleCredentialsDeleted::descriptor()->full_name(),
      v1::TargetFinalized::descriptor()->full_name(),
  };
  projections::CredentialLifetimes lifetimes;
  if (head > 0) {
    RETURN_IF_ERROR(ForEachEvent(
        *store_, filter, 0, [&](const store::RecordedEvent& e) { return lifetimes.Apply(e); }));
  }
  v1::ValidCredentialsAtResponse response;
  response.set_head_seq(head);
  for (v1::CredentialLifetime& c : lifetimes.ValidAt(projections::FromProto(request.time()),
                                                     request.namespace_(), request.name())) {
    *response.add_credentials() = std::move(c);
  }
  return response;
}

}  // namespace credledger::service
