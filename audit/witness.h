// Witnesses: the log's newest signed checkpoints kept outside its database, so that a log
// rewritten, truncated or replaced together with its checkpoints no longer matches what was
// published (docs/audit.md, "Witnesses").
//
// A witness is named by a spec: "file:<path>" (an append-only file, see file_witness.h) or
// "kubernetes:<namespace>/<configmap>" (a ConfigMap on the home cluster, kept by the service).
// Both hold the same text: one checkpoint per line as a JSON object (checkpoint_json.h),
// oldest first.
//
// Thread-safety: the functions are pure; a WitnessStore is used from one thread at a time.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "credledger/v1/audit.pb.h"

namespace credledger::audit {

// Checkpoints a witness keeps (the ConfigMap) or returns from Read (the newest) at most.
inline constexpr size_t kWitnessHistory = 16;

// A parsed witness spec.
struct WitnessSpec {
  enum class Kind { kFile, kKubernetes };
  Kind kind = Kind::kFile;
  // kFile: the file's path.
  std::string path;
  // kKubernetes: the ConfigMap's namespace and name (DNS-1123 label and subdomain).
  std::string configmap_namespace;
  std::string configmap_name;
  // The spec as given ("file:var/witness.jsonl"); names the witness in messages.
  std::string text;
};

// Parses "file:<path>" or "kubernetes:<namespace>/<configmap>". `flag` names the value in
// errors ("--witness"). Errors: kInvalidArgument naming `flag`, the accepted forms and what is
// wrong (an empty path, a namespace that is not a DNS-1123 label, a name that is not a
// DNS-1123 subdomain).
absl::StatusOr<WitnessSpec> ParseWitnessSpec(absl::string_view flag, absl::string_view text);

// The text of `checkpoints`, one JSON line each, each line ending with '\n'.
std::string RenderWitnessLines(const std::vector<v1::Checkpoint>& checkpoints);
// The checkpoints of a witness text, oldest first. A line that does not end with '}' (empty,
// or a write cut short by a crash, which the next append ends with '\n') is skipped. `name` names
// the witness in errors. Errors: kDataLoss "<name>: line N: ..." for a line that is not a
// checkpoint, or for seqs that do not increase.
absl::StatusOr<std::vector<v1::Checkpoint>> ParseWitnessLines(absl::string_view name,
                                                              absl::string_view text);

// Where a witness is kept. Implementations: FileWitness (file_witness.h) and the service's
// ConfigMap witness.
class WitnessStore {
 public:
  virtual ~WitnessStore() = default;
  // The checkpoints held, oldest first; empty for a witness that holds none yet.
  // Errors: kDataLoss when its content does not parse; kNotFound, kPermissionDenied or
  // kUnavailable when it cannot be read (the message names the witness).
  virtual absl::StatusOr<std::vector<v1::Checkpoint>> Read() = 0;
  // Records `checkpoint`, newer than every one held; durable when OK is returned. Errors: as
  // Read, for writing.
  virtual absl::Status Append(const v1::Checkpoint& checkpoint) = 0;
  // The spec's text, for messages ("file:var/witness.jsonl").
  virtual const std::string& name() const = 0;
};

}  // namespace credledger::audit
