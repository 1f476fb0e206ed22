#include "audit/earlier_export.h"

#include <string>
#include <utility>
#include <variant>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "audit/export_format.h"
#include "audit/stored_events.h"
#include "common/status_macros.h"

namespace credledger::audit {
absl::StatusOr<v1::ExportTrailer> ReadLastTrailer(std::istream& in) {
  std::string line;
  std::string last;
  while (std::getline(in, line)) {
    if (absl::EndsWith(line, "\r")) line.pop_back();
    if (!line.empty()) last = std::move(line);
  }
  if (last.empty()) return absl::InvalidArgumentError("it holds no line");
  ASSIGN_OR_RETURN(ExportFormat format, DetectFormat(last));
  ASSIGN_OR_RETURN(ExportLine parsed, ParseLine(format, last));
  if (auto* trailer = std::get_if<v1::ExportTrailer>(&parsed)) return std::move(*trailer);
  return absl::InvalidArgumentError("its last line is not an export trailer");
}

std::optional<Problem> CheckEarlierTrailer(const KeyRing& keys, const v1::ExportTrailer& earlier) {
  return CheckSignedTrailer(keys, earlier, "the earlier export (--previous): ");
}

std::optional<Problem> CheckReachesEarlierHead(int64_t head_seq, const v1::ExportTrailer& earlier,
                                               absl::string_view what) {
  if (head_seq >= earlier.head_seq()) return std::nullopt;
  return Problem{0, kProblemStale,
                 absl::StrCat(what, " ends at head seq ", head_seq, ", before seq ",
                              earlier.head_seq(), ", the head of the earlier export (--previous)")};
}

std::optional<Problem> MatchEarlierHead(const v1::ExportTrailer& earlier,
                                        absl::string_view chain_hash, absl::string_view holder,
                                        Verdict& verdict) {
  const int64_t seq = earlier.head_seq();
  if (chain_hash != earlier.head_chain_hash()) {
    return Problem{seq, kProblemFork,
                   absl::StrCat("the log no longer holds the earlier export's head: seq ", seq,
                                " had chain hash ", HashPrefix(earlier.head_chain_hash()), ", ",
                                holder, " has ", HashPrefix(chain_hash))};
  }
  if (!verdict.earlier_head.has_value()) {
    verdict.earlier_head = Verdict::EarlierHead{seq, earlier.head_chain_hash(), {}};
  }
  verdict.earlier_head->holders.emplace_back(holder);
  return std::nullopt;
}

absl::Status CheckEarlierInLog(store::EventStore& log, const KeyRing& keys,
                               const v1::ExportTrailer& earlier, Verdict& verdict) {
  if (!verdict.ok()) return absl::OkStatus();
  verdict.problem = CheckEarlierTrailer(keys, earlier);
  if (!verdict.ok()) return absl::OkStatus();
  verdict.problem = CheckReachesEarlierHead(verdict.head_seq, earlier, "the log");
  if (!verdict.ok()) return absl::OkStatus();
  StoredEvents stored(log);
  ASSIGN_OR_RETURN(std::optional<std::string> held, stored.ChainHashAt(earlier.head_seq()));
  if (!held.has_value()) {
    verdict.problem = Problem{0, kProblemStale,
                              absl::StrCat("the log holds no event at seq ", earlier.head_seq(),
                                           ", the head of the earlier export (--previous)")};
    return absl::OkStatus();
  }
  verdict.problem = MatchEarlierHead(earlier, *held, "the database", verdict);
  return absl::OkStatus();
}

}  // namespace credledger::audit
