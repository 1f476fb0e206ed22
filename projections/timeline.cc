#include "projections/timeline.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "projections/event_summary.h"
#include "projections/identity_state.h"
#include "projections/proto_time.h"
#include "projections/report_streams.h"
#include "projections/target_state.h"
#include "store/event_codec.h"

namespace credledger::projections {
namespace {

// "credledger.v1.CredentialIssued" -> "CredentialIssued".
std::string ShortType(absl::string_view type) {
  const size_t dot = type.rfind('.');
  return std::string(dot == absl::string_view::npos ? type : type.substr(dot + 1));
}

// `text` with bytes below 0x20 and 0x7f written as "\xNN".
std::string OneLine(absl::string_view text) {
  constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    const auto byte = static_cast<unsigned char>(ch);
    if (byte < 0x20 || byte == 0x7f) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace

TimelineBuilder::TimelineBuilder(std::string target_namespace, std::string name)
    : TimelineBuilder(target_namespace, name, TargetStream(target_namespace, name),
                      ReportStream(target_namespace, name)) {}

TimelineBuilder TimelineBuilder::ForIdentity(const std::string& identity) {
  // No liveness entry has an empty namespace, and no stream is named "".
  return TimelineBuilder("", identity, IdentityStream(identity), "");
}

TimelineBuilder::TimelineBuilder(std::string target_namespace, std::string name,
                                 std::string own_stream, std::string report_stream)
    : namespace_(std::move(target_namespace)),
      name_(std::move(name)),
      target_stream_(std::move(own_stream)),
      report_stream_(std::move(report_stream)) {}

absl::StatusOr<std::optional<v1::TimelineEntry>> TimelineBuilder::Apply(
    const store::RecordedEvent& recorded) {
  const bool own = recorded.stream == target_stream_ || recorded.stream == report_stream_;
  if (!own && recorded.stream != kLivenessStream) return std::nullopt;
  ASSIGN_OR_RETURN(v1::Event event, store::EventCodec::Default().Decode(recorded));
  ASSIGN_OR_RETURN(v1::EventMetadata metadata, store::EventCodec::DecodeMetadata(recorded));
  v1::TimelineEntry entry;
  if (own) {
    DescribeEvent(event, entry);
    NameCluster(event, entry);
    // A ReportingStale opens a silence; a report ends it, and so does the report or heartbeat
    // a ReportClockSkewCleared records; a new incarnation or a finalization leaves none open.
    if (event.has_reporting_stale()) {
      silent_ = true;
    } else if (event.has_report_accepted() || event.has_report_clock_skew_cleared() ||
               event.has_target_registered() || event.has_target_finalized()) {
      silent_ = false;
    }
  } else {
    const v1::LivenessEntry* heartbeat = nullptr;
    for (const v1::LivenessEntry& e : event.liveness_observed().entries()) {
      if (e.namespace_() == namespace_ && e.name() == name_) heartbeat = &e;
    }
    if (heartbeat == nullptr || !silent_) return std::nullopt;
    silent_ = false;
    entry.set_target_uid(heartbeat->target_uid());
    entry.set_summary("heartbeat received: reporting again");
  }
  entry.set_seq(recorded.seq);
  *entry.mutable_recorded_at() = ToProto(absl::FromUnixMicros(recorded.recorded_at_us));
  entry.set_stream(recorded.stream);
  entry.set_actor(metadata.actor());
  entry.set_request_id(metadata.request_id());
  entry.set_event_type(ShortType(recorded.type));
  return entry;
}

void TimelineBuilder::NameCluster(const v1::Event& event, v1::TimelineEntry& entry) {
  if (event.has_identity_created()) cluster_ = event.identity_created().spec().cluster();
  if (event.has_identity_updated()) cluster_ = event.identity_updated().spec().cluster();
  if (cluster_.empty()) return;
  const bool cluster_failure =
      event.has_mirror_failed() &&
      (event.mirror_failed().kind() == v1::MIRROR_FAILURE_KIND_CLUSTER_UNREACHABLE ||
       event.mirror_failed().kind() == v1::MIRROR_FAILURE_KIND_CLUSTER_UNSUPPORTED);
  const bool in_cluster = event.has_mirror_written() || event.has_mirror_deleted() ||
                          event.has_mirror_deleted_externally() || event.has_bound_object_gone() ||
                          (event.has_mirror_failed() && !cluster_failure) ||
                          event.has_namespace_labels_observed();
  if (in_cluster) entry.set_summary(absl::StrCat("in cluster ", cluster_, ": ", entry.summary()));
}

std::string FormatTimelineEntry(const v1::TimelineEntry& entry) {
  std::string line = absl::StrCat(
      absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", FromProto(entry.recorded_at()), absl::UTCTimeZone()),
      "  seq ", entry.seq(), "  ", OneLine(entry.actor()), "  ", OneLine(entry.event_type()), "  ",
      OneLine(entry.summary()));
  if (!entry.secret_name().empty())
    absl::StrAppend(&line, " secret=", OneLine(entry.secret_name()));
  if (!entry.credential_tag().empty()) {
    absl::StrAppend(&line, " tag=", OneLine(entry.credential_tag()));
  }
  line += '\n';
  return line;
}

}  // namespace credledger::projections
