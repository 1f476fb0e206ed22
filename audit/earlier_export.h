// The earlier export of `credledger verify --previous` (docs/audit.md, "Keeping exports
// consistent"): its trailer, read from the earlier export itself or from a file holding only
// its trailer line, and the checks that a newer export or a database still holds its signed
// head: the head is not behind it (kProblemStale) and holds the same chain_hash at its seq
// (kProblemFork otherwise).
//
// Thread-safety: pure functions, except that CheckEarlierInLog reads the store.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "audit/signing_key.h"
#include "audit/verification.h"
#include "credledger/v1/audit.pb.h"
#include "store/event_store.h"

namespace credledger::audit {

// The trailer of an earlier export: the last non-empty line of `in` (a trailing '\r'
// ignored), a JSON Lines `{"trailer": ...}` or CloudEvents trailer line as ParseLine reads it.
// Errors: kInvalidArgument "it holds no line", "its last line is not an export trailer", or
// the line's parse error.
absl::StatusOr<v1::ExportTrailer> ReadLastTrailer(std::istream& in);

// The earlier trailer itself: CheckSignedTrailer with details starting "the earlier export
// (--previous): ".
std::optional<Problem> CheckEarlierTrailer(const KeyRing& keys, const v1::ExportTrailer& earlier);

// Whether `what` ("the export", "the log"), whose head is `head_seq`, reaches the earlier
// head: kProblemStale "<what> ends at head seq H, before seq E, the head of the earlier export
// (--previous)" when it does not.
std::optional<Problem> CheckReachesEarlierHead(int64_t head_seq, const v1::ExportTrailer& earlier,
                                               absl::string_view what);

// `chain_hash`, what `holder` ("line 31 of this export", "the database") shows at the earlier
// head's seq, against the earlier head's chain_hash: kProblemFork at that seq "the log no
// longer holds the earlier export's head: seq N had chain hash X..., <holder> has Y..." when
// they differ; otherwise adds `holder` to verdict.earlier_head (setting it on first use).
std::optional<Problem> MatchEarlierHead(const v1::ExportTrailer& earlier,
                                        absl::string_view chain_hash, absl::string_view holder,
                                        Verdict& verdict);

// `verify --db DB --previous EARLIER` once VerifyLog's `verdict` passed: the earlier trailer
// (CheckEarlierTrailer), the log reaching its head (CheckReachesEarlierHead with
// verdict.head_seq) and holding its chain_hash (MatchEarlierHead, holder "the database").
// Sets verdict.problem, or verdict.earlier_head when everything holds; does nothing when
// `verdict` failed already. Errors: the store's read errors.
absl::Status CheckEarlierInLog(store::EventStore& log, const KeyRing& keys,
                               const v1::ExportTrailer& earlier, Verdict& verdict);

}  // namespace credledger::audit
