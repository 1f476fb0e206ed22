// ExportVerifier: `credledger verify <export>`: checks a kJsonLines or kCloudEvents export
// offline, without the database (docs/audit.md, "Verifying an export, step by step").
//
// Per event line: the line parses; `data`, actor and request id equal what the stored bytes
// decode to (an edited `data` with untouched bytes is caught here); the chain rules of
// ChainVerifier (edited bytes with untouched `data` are caught there).
// At the end: a trailer is present and is the last line; its version is known
// (kProblemUnsupportedTrailer); its signature and key id, and those of its checkpoint, verify
// with the given public key; the filter's implied completeness
// holds: without stream, prefix or type filters the seqs are consecutive, start at
// after_seq + 1 (1 without a lower bound) unless from_time_us is set, and end at head_seq (or
// until_seq when below it) unless to_time_us is set; without a type filter every stream's
// versions are consecutive and start at 0 without a lower bound;
// the export does not end before the trailer's last_seq (truncated tail); first_seq,
// last_seq, event_count and the last version and stream_hash of every stream equal what was
// read; no event and no checkpoint is after head_seq; the exported event at head_seq and at
// the checkpoint's seq, when among the last ChainVerifier::kRecentChainHashes events read,
// has the stated chain_hash; every line is committed to: in version 2 the lines read hash to
// the signed lines_hash (LinesHash), and a version 1 trailer, which signs no such hash, is
// refused (kProblemUnsupportedTrailer) unless its export is empty, or global (no stream,
// prefix or type filter) and starts at seq 1 or ends at its head or its checkpoint, where the
// stream chains and the global chain bind every line to signed hashes (docs/audit.md,
// "Trailer"); and head_seq >= min_seq (an old export, however genuine,
// of a log the auditor has seen further does not pass). The verdict counts the checkpoint as
// verified only when its chain_hash could be compared with an exported event.
//
// With an earlier export's trailer (ExportVerifyOptions::earlier, `verify --previous`), that
// trailer's own signature is checked after the export's, and last, the export's head must not
// be behind the earlier head (kProblemStale) and the chain_hash at the earlier head's seq, as
// the export's line there, its head, its checkpoint or the database shows it, must be the
// earlier one (kProblemFork); when none of them shows it, kProblemEarlierHeadNotShown.
//
// With a database copy of the log (ExportVerifyOptions::log, `verify FILE --db DB`), each
// exported event must also be the stored event at its seq, field for field
// (StoredEvents::Compare, checked as its line passes), and after the lines_hash the database
// must hold the trailer's head_chain_hash at head_seq (kProblemDatabaseMismatch). The copy
// itself is not verified here: `verify --db DB` alone does that (log_verifier.h).
//
// Each problem names the first bad seq where the input shows it: line problems stop the
// verification at their line; the end checks run in the order above.
//
// Thread-safety: not thread-safe.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "audit/chain_verifier.h"
#include "audit/export_format.h"
#include "audit/signed_records.h"
#include "audit/signing_key.h"
#include "audit/stored_events.h"
#include "audit/verification.h"
#include "store/event_codec.h"

namespace credledger::audit {

struct ExportVerifyOptions {
  // The service's public keys: the one that signed the trailer, and the ones that signed
  // the checkpoints it carries (a different one after a key rotation). Not owned; must
  // outlive the verifier.
  const KeyRing* public_key = nullptr;
  // The log must reach at least this seq (the auditor's last seen head); 0: no requirement.
  int64_t min_seq = 0;
  // Decodes payloads to compare with `data`. Not owned.
  const store::EventCodec* codec = &store::EventCodec::Default();
  // A database copy of the log the export is compared with, event by event; null: none. Not
  // owned; only read.
  store::EventStore* log = nullptr;
  // The trailer of an earlier export whose head the log must still hold (verify --previous;
  // earlier_export.h); null: none. Not owned.
  const v1::ExportTrailer* earlier = nullptr;
};

class ExportVerifier {
 public:
  // REQUIRES: options.public_key != nullptr.
  explicit ExportVerifier(ExportVerifyOptions options);

  // Feeds the next line of the file, without its line break (a trailing '\r' is ignored).
  // Empty lines are ignored. After the first problem, or a failed read of options.log,
  // further lines are ignored.
  void AddLine(absl::string_view line);
  // Ends the input and returns the verdict.
  Verdict Finish();
  // What kept options.log from being read (its read errors); OK otherwise. When not OK, the
  // verdict is incomplete.
  const absl::Status& status() const { return status_; }

 private:
  std::optional<Problem> CheckLine(absl::string_view line);
  std::optional<Problem> CheckRecord(const ExportRecord& record, absl::string_view line);
  std::optional<Problem> CheckEnd();
  std::optional<Problem> CheckCompleteness(const v1::ExportTrailer& trailer) const;
  std::optional<Problem> CheckTrailerCounts(const v1::ExportTrailer& trailer) const;
  std::optional<Problem> CheckTrailerHashes(const v1::ExportTrailer& trailer);
  std::optional<Problem> CheckEveryLineCommitted(const v1::ExportTrailer& trailer) const;
  std::optional<Problem> CheckStored(const store::RecordedEvent& event);
  std::optional<Problem> CheckStoredHead(const v1::ExportTrailer& trailer);
  std::optional<Problem> CheckEarlierHead(const v1::ExportTrailer& trailer);

  ExportVerifyOptions options_;
  std::optional<ExportFormat> format_;
  ChainVerifier chain_;
  LinesHash lines_;
  std::optional<StoredEvents> stored_;  // set when options.log is
  // The line number and chain_hash of the line at options.earlier's head seq, once read.
  std::optional<std::pair<int64_t, std::string>> earlier_line_;
  absl::Status status_;
  std::optional<v1::ExportTrailer> trailer_;
  int64_t trailer_line_ = 0;
  Verdict verdict_;
  int64_t line_number_ = 0;
};

// Verifies every line of `in` (split on '\n'). Same checks as ExportVerifier.
// Errors: ExportVerifier::status()'s.
absl::StatusOr<Verdict> VerifyExport(std::istream& in, const ExportVerifyOptions& options);

}  // namespace credledger::audit
