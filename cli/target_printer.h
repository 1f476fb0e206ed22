// Output of the `credledger target ...` client commands: concise human text, or the
// protobuf JSON mapping (`--output json`). Never prints anything the API does not return;
// the API returns no token material.
//
// Pure functions; thread-safe.
#pragma once

#include <google/protobuf/message.h>
#include <google/protobuf/timestamp.pb.h>

#include <string>

#include "absl/status/statusor.h"
#include "credledger/v1/api.pb.h"

namespace credledger::cli {

// RFC 3339 in UTC to the second ("2026-01-01T00:00:00Z"); "-" for an unset time.
std::string FormatTimestamp(const google::protobuf::Timestamp& t, bool set);

// A multi-line description of one Target: identity, phase, condition, current credential
// (secret, tag, chart version suffix, times), older Secrets, mint in flight, last seq.
std::string FormatTargetText(const v1::Target& target);

// The header and one row per Target of `target list`.
std::string FormatTargetTableHeader();
std::string FormatTargetRow(const v1::Target& target);

// One line per watch item: "<seq> <kind> <namespace>/<name> <phase> <status>/<reason>
// <secret>", or the end-of-snapshot marker.
std::string FormatWatchItem(const v1::WatchTargetsResponse& item);

// The protobuf JSON mapping of `message` on one line (field names as in the .proto, every
// field printed, 64-bit integers as strings).
// Errors: kInternal when protobuf refuses the conversion.
absl::StatusOr<std::string> ToJson(const google::protobuf::Message& message);

}  // namespace credledger::cli
