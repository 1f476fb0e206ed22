#include "audit/verification.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "audit/signed_records.h"
#include "common/sha256.h"

namespace credledger::audit {
namespace {

constexpr size_t kHashPrefixChars = 12;

// "<n> <noun>s", or "1 <noun>".
std::string CountOf(int64_t n, absl::string_view noun) {
  return absl::StrCat(n, " ", noun, n == 1 ? "" : "s");
}

// "<n> events, seq <first>..<last>, head <head>, <k> checkpoints verified (newest ...), <m>
// snapshots verified".
std::string Counts(const Verdict& verdict) {
  std::string out = CountOf(verdict.events, "event");
  if (verdict.events > 0) {
    absl::StrAppend(&out, ", seq ", verdict.first_seq, "..", verdict.last_seq);
  }
  // A failure found before the trailer (or the database head) was read knows no head.
  if (verdict.ok() || verdict.head_seq > 0) absl::StrAppend(&out, ", head ", verdict.head_seq);
  absl::StrAppend(&out, ", ", CountOf(verdict.checkpoints_checked, "checkpoint"), " verified");
  if (verdict.checkpoint.has_value()) {
    absl::StrAppend(&out, " (newest at seq ", verdict.checkpoint->seq(), ", key ",
                    verdict.checkpoint->key_id(), ")");
  }
  if (verdict.snapshots_checked.has_value()) {
    absl::StrAppend(&out, ", ", CountOf(*verdict.snapshots_checked, "snapshot"), " verified");
  }
  return out;
}

}  // namespace

std::string HashPrefix(absl::string_view hash) {
  return absl::StrCat(common::HexEncode(hash).substr(0, kHashPrefixChars), "...");
}

std::string MissingRange(absl::string_view noun, int64_t from, int64_t to) {
  if (from == to) return absl::StrCat(noun, " ", from, " is missing");
  return absl::StrCat(noun, "s ", from, "..", to, " are missing");
}

std::optional<Problem> CheckSignedTrailer(const KeyRing& keys, const v1::ExportTrailer& trailer,
                                          absl::string_view whose) {
  if (absl::Status version = CheckTrailerVersion(trailer); !version.ok()) {
    return Problem{0, kProblemUnsupportedTrailer, absl::StrCat(whose, version.message())};
  }
  if (absl::Status signature = VerifyTrailer(keys, trailer); !signature.ok()) {
    return Problem{0, kProblemBadSignature, absl::StrCat(whose, signature.message())};
  }
  return std::nullopt;
}

std::string FormatVerdict(const Verdict& verdict) {
  if (verdict.ok()) {
    std::string out = absl::StrCat("OK: ", Counts(verdict), "\n");
    if (verdict.earlier_head.has_value()) {
      const Verdict::EarlierHead& head = *verdict.earlier_head;
      absl::StrAppend(&out, "earlier head confirmed: seq ", head.seq, " has chain hash ",
                      HashPrefix(head.chain_hash), " in ", absl::StrJoin(head.holders, " and "),
                      "\n");
    }
    if (verdict.witnessed.has_value()) {
      const Verdict::Witnessed& witness = *verdict.witnessed;
      absl::StrAppend(&out, "witness confirmed: ", witness.name, " holds ", witness.checkpoints,
                      " checkpoints, newest at seq ", witness.newest_seq, ", all in the log\n");
    }
    return out;
  }
  const Problem& problem = *verdict.problem;
  std::string out = "FAILED";
  if (problem.seq > 0) absl::StrAppend(&out, " at seq ", problem.seq);
  absl::StrAppend(&out, ": ", problem.kind, ": ", problem.detail, "\n");
  absl::StrAppend(&out, "read: ", Counts(verdict), "\n");
  return out;
}

}  // namespace credledger::audit
