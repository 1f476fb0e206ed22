#include "projections/report_summary.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <cstdint>
#include <string>

#include "credledger/v1/events.pb.h"

namespace credledger::projections {
namespace {

namespace pb = google::protobuf;
using pb::io::CodedInputStream;
using WireFormat = pb::internal::WireFormatLite;

// Whether `tag` is field `number` with wire type `type`. A known field number with another
// wire type is an unknown field to Protobuf's parser, so it is skipped here too.
bool Is(uint32_t tag, int number, WireFormat::WireType type) {
  return WireFormat::GetTagFieldNumber(tag) == number && WireFormat::GetTagWireType(tag) == type;
}

constexpr WireFormat::WireType kBytes = WireFormat::WIRETYPE_LENGTH_DELIMITED;
constexpr WireFormat::WireType kVarint = WireFormat::WIRETYPE_VARINT;

// Reads the fields of the message that ends at the stream's current limit, handing each tag
// to `field` (which reads or skips the field and returns false on malformed data).
template <typename F>
bool ReadFields(CodedInputStream& in, F&& field) {
  while (const uint32_t tag = in.ReadTag()) {
    if (!field(tag)) return false;
  }
  return in.ConsumedEntireMessage();  // false when ReadTag stopped on bad data, not the end
}

// Reads a length-delimited sub-message with `field` (see ReadFields).
template <typename F>
bool ReadNested(CodedInputStream& in, F&& field) {
  // The stream over the payload is limited to its size, and a limit pushed past an enclosing
  // one is cut to it: a sub-message longer than the bytes left must be refused here.
  uint32_t length = 0;
  if (!in.ReadVarint32(&length) || length > static_cast<uint32_t>(in.BytesUntilLimit())) {
    return false;
  }
  const auto [limit, depth] = in.IncrementRecursionDepthAndPushLimit(static_cast<int>(length));
  if (depth < 0 || !ReadFields(in, field)) return false;
  return in.DecrementRecursionDepthAndPopLimit(limit);
}

bool Skip(CodedInputStream& in, uint32_t tag) { return WireFormat::SkipField(&in, tag); }

bool ReadTimestamp(CodedInputStream& in, pb::Timestamp& out, bool& plain) {
  return ReadNested(in, [&](uint32_t tag) {
    uint64_t value = 0;
    if (Is(tag, pb::Timestamp::kSecondsFieldNumber, kVarint)) {
      if (!in.ReadVarint64(&value)) return false;
      out.set_seconds(static_cast<int64_t>(value));
      return true;
    }
    if (Is(tag, pb::Timestamp::kNanosFieldNumber, kVarint)) {
      if (!in.ReadVarint64(&value)) return false;
      out.set_nanos(static_cast<int32_t>(value));
      return true;
    }
    plain = false;
    return Skip(in, tag);
  });
}

bool ReadString(CodedInputStream& in, std::string& out) {
  return WireFormat::ReadString(&in, &out);
}

// A PreflightCheck: counts it and its outcome (target_status.h, PreflightReady).
bool ReadCheck(CodedInputStream& in, ReportSummary& out, std::string& status) {
  status.clear();
  const bool read = ReadNested(in, [&](uint32_t tag) {
    if (Is(tag, v1::PreflightCheck::kStatusFieldNumber, kBytes)) return ReadString(in, status);
    return Skip(in, tag);
  });
  if (!read) return false;
  ++out.checks;
  if (status == "False") {
    out.any_check_failed = true;
  } else if (status != "True") {
    out.any_check_errored = true;
  }
  return true;
}

bool ReadRelease(CodedInputStream& in, ReportSummary::Release& out) {
  return ReadNested(in, [&](uint32_t tag) {
    if (Is(tag, v1::ReleaseStatus::kNameFieldNumber, kBytes)) return ReadString(in, out.name);
    if (Is(tag, v1::ReleaseStatus::kNamespaceFieldNumber, kBytes)) {
      return ReadString(in, out.namespace_);
    }
    if (Is(tag, v1::ReleaseStatus::kPhaseFieldNumber, kVarint)) {
      uint64_t value = 0;
      if (!in.ReadVarint64(&value)) return false;
      out.phase = static_cast<v1::ReleasePhase>(static_cast<int32_t>(value));
      return true;
    }
    return Skip(in, tag);
  });
}

bool ReadReport(CodedInputStream& in, ReportSummary& out, std::string& scratch) {
  return ReadNested(in, [&](uint32_t tag) {
    if (Is(tag, v1::TargetReportSpec::kLastReportTimeFieldNumber, kBytes)) {
      return ReadTimestamp(in, out.last_report_time, out.plain_times);
    }
    if (Is(tag, v1::TargetReportSpec::kReleasesFieldNumber, kBytes)) {
      return ReadRelease(in, out.releases.emplace_back());
    }
    if (Is(tag, v1::TargetReportSpec::kPreflightChecksFieldNumber, kBytes)) {
      return ReadCheck(in, out, scratch);
    }
    return Skip(in, tag);
  });
}

}  // namespace

bool ReadReportSummary(absl::string_view payload, ReportSummary& out) {
  out.target_uid.clear();
  out.received_at.Clear();
  out.last_report_time.Clear();
  out.checks = 0;
  out.any_check_failed = false;
  out.any_check_errored = false;
  out.releases.clear();
  out.plain_times = true;
  CodedInputStream in(reinterpret_cast<const uint8_t*>(payload.data()),
                      static_cast<int>(payload.size()));
  std::string scratch;
  return ReadFields(in, [&](uint32_t tag) {
    if (Is(tag, v1::ReportAccepted::kTargetUidFieldNumber, kBytes)) {
      return ReadString(in, out.target_uid);
    }
    if (Is(tag, v1::ReportAccepted::kReportFieldNumber, kBytes)) {
      return ReadReport(in, out, scratch);
    }
    if (Is(tag, v1::ReportAccepted::kReceivedAtFieldNumber, kBytes)) {
      return ReadTimestamp(in, out.received_at, out.plain_times);
    }
    return Skip(in, tag);
  });
}

}  // namespace credledger::projections
