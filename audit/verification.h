// What verifying a log or an export found (docs/audit.md, "Verifying an export, step by
// step").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "audit/signing_key.h"
#include "credledger/v1/audit.pb.h"

namespace credledger::audit {

// The first thing that did not verify.
struct Problem {
  // seq of the event concerned; 0 when the problem is not tied to one event (a missing
  // trailer, a bad trailer signature, a stale export).
  int64_t seq = 0;
  // One of the kProblem* names below.
  std::string kind;
  // What exactly differs, in words; never secret material.
  std::string detail;
};

inline constexpr char kProblemMalformed[] = "malformed line";
inline constexpr char kProblemDigestMismatch[] = "digest mismatch";
inline constexpr char kProblemChainBreak[] = "chain break";
inline constexpr char kProblemStreamChainBreak[] = "stream chain break";
inline constexpr char kProblemGap[] = "gap";
inline constexpr char kProblemReordering[] = "reordering";
inline constexpr char kProblemDataMismatch[] = "data mismatch";
inline constexpr char kProblemTruncated[] = "truncated tail";
inline constexpr char kProblemTrailerMismatch[] = "trailer mismatch";
inline constexpr char kProblemCheckpointMismatch[] = "checkpoint mismatch";
inline constexpr char kProblemBadSignature[] = "bad signature";
inline constexpr char kProblemStale[] = "stale";
// A checkpoint a witness holds that the log contradicts (verify --witness; docs/audit.md,
// "Witnesses").
inline constexpr char kProblemWitnessMismatch[] = "witness mismatch";
// A database whose head no recent checkpoint of a given key anchors (verify --db;
// docs/audit.md, "Start-up check").
inline constexpr char kProblemUnsignedTail[] = "unsigned tail";
// The log no longer holds the head of an earlier export (verify --previous): another
// chain_hash at its seq.
inline constexpr char kProblemFork[] = "fork";
// Neither the export nor a database shows the chain_hash at an earlier export's head seq
// (verify --previous).
inline constexpr char kProblemEarlierHeadNotShown[] = "earlier head not shown";
// An exported event or head that differs from a database copy (verify FILE --db DB).
inline constexpr char kProblemDatabaseMismatch[] = "database mismatch";
// A trailer whose version is unknown, or whose version does not commit to every line of its
// export (docs/audit.md, "Trailer").
inline constexpr char kProblemUnsupportedTrailer[] = "unsupported trailer";
inline constexpr char kProblemSnapshotMismatch[] = "snapshot mismatch";

// How a problem's detail names a hash: its first 12 lowercase hex characters and "...".
std::string HashPrefix(absl::string_view hash);
// How a problem's detail names missing positions `from`..`to` (from <= to) of kind `noun`
// ("seq", "version"): "seq 43 is missing" or "seqs 43..44 are missing".
std::string MissingRange(absl::string_view noun, int64_t from, int64_t to);

// The verdict over a whole export or database.
struct Verdict {
  // Events read (up to the first problem).
  int64_t events = 0;
  int64_t first_seq = 0;
  int64_t last_seq = 0;
  // The head the trailer (or the database) states.
  int64_t head_seq = 0;
  // The newest checkpoint that verified; unset when none.
  std::optional<v1::Checkpoint> checkpoint;
  // Checkpoints whose signature and chain hash were checked.
  int64_t checkpoints_checked = 0;
  // Projection snapshots whose seal was checked (docs/audit.md, "Snapshots"); unset when the
  // verification does not check snapshots (an export, the start-up check).
  std::optional<int64_t> snapshots_checked;
  // The head of an earlier export (verify --previous) once the log was seen to hold it.
  struct EarlierHead {
    int64_t seq = 0;
    std::string chain_hash;
    // What showed it, in words ("line 31 of this export", "the database").
    std::vector<std::string> holders;
  };
  std::optional<EarlierHead> earlier_head;
  // The witness the log was checked against (verify --witness) once it agreed: its name, the
  // checkpoints it holds and the newest one's seq.
  struct Witnessed {
    std::string name;
    int64_t checkpoints = 0;
    int64_t newest_seq = 0;
  };
  std::optional<Witnessed> witnessed;
  // Unset when everything verified.
  std::optional<Problem> problem;

  bool ok() const { return !problem.has_value(); }
};

// The trailer's own checks: its version is known (kProblemUnsupportedTrailer), and its
// signature and its checkpoint's verify with `keys` (kProblemBadSignature); each detail starts
// with `whose` ("" for the export's own trailer). nullopt when both hold.
std::optional<Problem> CheckSignedTrailer(const KeyRing& keys, const v1::ExportTrailer& trailer,
                                          absl::string_view whose);

// The verdict as printed by `credledger verify`, one fact per line, each ending with a
// newline. On success one line:
//   OK: <n> events, seq <first>..<last>, head <head>, <k> checkpoints verified (newest at seq
//   <s>, key <key id>), <m> snapshots verified
// (", seq <first>..<last>" only when n > 0, the parenthesis only when a checkpoint verified,
// the snapshots only when they were checked), then, when an earlier export's head was
// confirmed (verify --previous), a line:
//   earlier head confirmed: seq <s> has chain hash <prefix> in <holder> and <holder>
// and when a witness agreed (verify --witness), a line:
//   witness confirmed: <name> holds <n> checkpoints, newest at seq <s>, all in the log
// On failure:
//   FAILED at seq <N>: <kind>: <detail>      ("at seq <N>" only when N > 0)
//   read: <the same counts as after "OK: ">
std::string FormatVerdict(const Verdict& verdict);

}  // namespace credledger::audit
