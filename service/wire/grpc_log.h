// gRPC core's own log messages (gpr_log) in the service log (docs/operations.md, "Logs" and
// "Repeated lines"). Without it gRPC writes plain-text lines to stderr, one per failed TLS
// handshake, so clients without a certificate could write without bound.
//
// Each message becomes a line {"msg":"grpc","message":...,"source":"<file>:<line>"} at its
// level (debug and info as info, error as error), except a failed TLS handshake: a client's
// doing, written at warning as {"msg":"TLS handshake failed","error":...} once per interval
// and counted otherwise, with a summary line "TLS handshake failed, repeated" per interval
// (common/repeat_log.h). gRPC's message does not name the client, so every failed handshake
// counts under the peer kGrpcUnnamedPeer, by message.
//
// Thread-safety: gRPC calls the installed function from any of its threads; everything here
// is thread-safe.
#pragma once

#include "absl/strings/string_view.h"
#include "common/log.h"
#include "common/repeat_log.h"

namespace credledger::service {

// The `msg` of a passed-on gRPC message, of a failed handshake, and of their summaries.
inline constexpr char kGrpcLogMessage[] = "grpc";
inline constexpr char kHandshakeFailedMessage[] = "TLS handshake failed";
inline constexpr char kHandshakeFailedSummary[] = "TLS handshake failed, repeated";
// The peer of failed handshakes in summaries.
inline constexpr char kGrpcUnnamedPeer[] = "(not named by gRPC)";

// Makes gRPC core log through RouteGrpcLog (gpr_set_log_function) with the process's
// handshake RepeatLog (10 s intervals, real time), whose thread it starts. Idempotent.
// Returns that RepeatLog, never destroyed: Stop it at shutdown to write its last summaries.
common::RepeatLog& RouteGrpcLogsToServiceLog();

// Writes one gRPC message (`severity` as gpr_log_severity: 0 debug, 1 info, 2 error) from
// source `file` (a path; its last part is logged) at `line`, counting a failed handshake in
// `handshakes`.
void RouteGrpcLog(int severity, absl::string_view file, int line, absl::string_view message,
                  common::RepeatLog& handshakes);

}  // namespace credledger::service
