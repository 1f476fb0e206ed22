// The source decider: a source check's outcome becomes one SourceVerified event on stream
// `source/<namespace>/<name>` (docs/connections.md, "Sources"). The check itself (I/O against
// the source and the home cluster) happens at the API edge before the command; the command
// carries its recorded outcome.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "credledger/v1/events.pb.h"

namespace credledger::service {

// The command name in the metadata of SourceVerified events.
inline constexpr char kVerifySourceCommand[] = "VerifySource";

// The stream of source `name` in `source_namespace`: "source/<namespace>/<name>".
std::string SourceStream(absl::string_view source_namespace, absl::string_view name);

// Records one source check's outcome.
struct RecordSourceVerified {
  v1::SourceVerified verified;
};

// The source checked, and who asked under which request.
struct SourceCommandContext {
  std::string source_namespace;
  std::string name;
  std::string actor;
  std::string request_id;
  std::string request_digest = {};  // RequestDigest of the client's request
};

// One SourceVerified event holding `command.verified`. A check is recorded every time it is
// asked for: nothing the stream holds changes the decision.
std::vector<v1::Event> DecideSourceVerified(const RecordSourceVerified& command);

}  // namespace credledger::service
