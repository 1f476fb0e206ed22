// Conversions between google.protobuf.Timestamp and absl::Time (microsecond precision is
// kept; nanoseconds beyond it are truncated).
#pragma once

#include <google/protobuf/timestamp.pb.h>

#include "absl/time/time.h"

namespace credledger::projections {

inline absl::Time FromProto(const google::protobuf::Timestamp& t) {
  return absl::FromUnixSeconds(t.seconds()) + absl::Nanoseconds(t.nanos());
}

inline google::protobuf::Timestamp ToProto(absl::Time t) {
  google::protobuf::Timestamp out;
  const int64_t us = absl::ToUnixMicros(t);
  int64_t seconds = us / 1'000'000;
  int64_t micros = us % 1'000'000;
  if (micros < 0) {
    micros += 1'000'000;
    seconds -= 1;
  }
  out.set_seconds(seconds);
  out.set_nanos(static_cast<int32_t>(micros * 1000));
  return out;
}

}  // namespace credledger::projections
