// The validity rule of a google.protobuf.Timestamp that comes from outside (a report's times,
// a point of the log asked for by an audit RPC): the rule the Timestamp message documents
// itself. Shared so that every input path refuses the same timestamps in the same words.
//
// Thread-safety: pure function.
#pragma once

#include <google/protobuf/timestamp.pb.h>

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace credledger::projections {

// The range of RFC 3339 (and of google.protobuf.Timestamp) in unix seconds:
// 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z.
inline constexpr int64_t kMinTimestampSeconds = -62135596800;
inline constexpr int64_t kMaxTimestampSeconds = 253402300799;

// Checks that `t` has nanos in 0..999'999'999 and seconds within the range above.
// Errors: kInvalidArgument "<field>: seconds S nanos N is not a time between years 1 and
// 9999".
inline absl::Status ValidateTimestamp(absl::string_view field,
                                      const google::protobuf::Timestamp& t) {
  if (t.nanos() >= 0 && t.nanos() <= 999'999'999 && t.seconds() >= kMinTimestampSeconds &&
      t.seconds() <= kMaxTimestampSeconds) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(field, ": seconds ", t.seconds(), " nanos ",
                                                 t.nanos(),
                                                 " is not a time between years 1 and 9999"));
}

}  // namespace credledger::projections
