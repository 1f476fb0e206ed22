#include "audit/export_verifier.h"

#include <algorithm>
#include <utility>
#include <variant>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "audit/earlier_export.h"
#include "audit/signed_records.h"
#include "store/log_hash.h"

namespace credledger::audit {
namespace {

// The export's name of the column holding the stored payload or metadata bytes.
absl::string_view BytesColumn(ExportFormat format, bool payload) {
  if (format == ExportFormat::kCloudEvents) return payload ? "payloadb64" : "metadatab64";
  return payload ? "payload_b64" : "metadata_b64";
}

// The fields of `rendered`, the line the stored bytes of an event render to.
// Errors: ParseLine's, kInternal when it parses as a trailer.
absl::StatusOr<ExportRecord> ParseRendered(ExportFormat format, absl::string_view rendered) {
  absl::StatusOr<ExportLine> parsed = ParseLine(format, rendered);
  if (!parsed.ok()) return parsed.status();
  ExportRecord* record = std::get_if<ExportRecord>(&*parsed);
  if (record == nullptr) return absl::InternalError("an event line rendered as a trailer");
  return std::move(*record);
}

Problem Mismatch(int64_t seq, std::string detail) {
  return Problem{seq, kProblemTrailerMismatch, std::move(detail)};
}

// "the export ends at seq 80 after 80 events" or "the export holds no events".
std::string WhatWasRead(const ChainVerifier& chain) {
  if (chain.events() == 0) return "the export holds no events";
  return absl::StrCat("the export ends at seq ", chain.last_seq(), " after ", chain.events(),
                      " events");
}

// The last stream heads of the trailer (ordered by stream) against those read.
std::optional<Problem> CheckStreamHeads(const v1::ExportTrailer& trailer,
                                        const ChainVerifier& chain) {
  auto read = chain.streams().begin();
  for (const v1::StreamHead& head : trailer.streams()) {
    if (read == chain.streams().end() || read->first > head.stream()) {
      return Mismatch(0, absl::StrCat("the trailer lists stream ", head.stream(),
                                      ", which the export does not hold"));
    }
    if (read->first < head.stream()) break;
    if (read->second.stream_version != head.stream_version() ||
        read->second.stream_hash != head.stream_hash()) {
      return Mismatch(0, absl::StrCat("the trailer states stream ", head.stream(),
                                      " ends at version ", head.stream_version(),
                                      " with stream hash ", HashPrefix(head.stream_hash()),
                                      ", the export ends it at version ",
                                      read->second.stream_version, " with ",
                                      HashPrefix(read->second.stream_hash)));
    }
    ++read;
  }
  if (read != chain.streams().end()) {
    return Mismatch(0, absl::StrCat("the export holds stream ", read->first,
                                    ", which the trailer does not list"));
  }
  return std::nullopt;
}

}  // namespace

ExportVerifier::ExportVerifier(ExportVerifyOptions options) : options_(options) {
  if (options_.log != nullptr) stored_.emplace(*options_.log);
}

void ExportVerifier::AddLine(absl::string_view line) {
  ++line_number_;
  if (verdict_.problem.has_value() || !status_.ok()) return;
  if (absl::EndsWith(line, "\r")) line.remove_suffix(1);
  if (line.empty()) return;
  verdict_.problem = CheckLine(line);
}

Verdict ExportVerifier::Finish() {
  if (!verdict_.problem.has_value() && status_.ok()) verdict_.problem = CheckEnd();
  verdict_.events = chain_.events();
  verdict_.first_seq = chain_.first_seq();
  verdict_.last_seq = chain_.last_seq();
  return verdict_;
}

std::optional<Problem> ExportVerifier::CheckLine(absl::string_view line) {
  if (!format_.has_value()) {
    absl::StatusOr<ExportFormat> format = DetectFormat(line);
    if (!format.ok()) {
      return Problem{0, kProblemMalformed,
                     absl::StrCat("line ", line_number_, ": ", format.status().message())};
    }
    format_ = *format;
  }
  absl::StatusOr<ExportLine> parsed = ParseLine(*format_, line);
  if (!parsed.ok()) {
    return Problem{0, kProblemMalformed,
                   absl::StrCat("line ", line_number_, ": ", parsed.status().message())};
  }
  if (trailer_.has_value()) {
    const ExportRecord* record = std::get_if<ExportRecord>(&*parsed);
    return Mismatch(record == nullptr ? 0 : record->event.seq,
                    absl::StrCat("line ", line_number_, " follows the trailer on line ",
                                 trailer_line_, "; the trailer must be the last line"));
  }
  if (auto* trailer = std::get_if<v1::ExportTrailer>(&*parsed)) {
    trailer_ = std::move(*trailer);
    trailer_line_ = line_number_;
    return std::nullopt;
  }
  const ExportRecord& record = std::get<ExportRecord>(*parsed);
  std::optional<Problem> problem = CheckRecord(record, line);
  if (!problem.has_value()) problem = CheckStored(record.event);
  if (problem.has_value()) return problem;
  lines_.Add(record.event);
  if (options_.earlier != nullptr && record.event.seq == options_.earlier->head_seq()) {
    earlier_line_.emplace(line_number_, record.event.chain_hash);
  }
  return std::nullopt;
}

std::optional<Problem> ExportVerifier::CheckStored(const store::RecordedEvent& event) {
  if (!stored_.has_value()) return std::nullopt;
  absl::StatusOr<std::optional<Problem>> compared = stored_->Compare(event, line_number_);
  if (compared.ok()) return *std::move(compared);
  status_ = compared.status();
  return std::nullopt;
}

std::optional<Problem> ExportVerifier::CheckStoredHead(const v1::ExportTrailer& trailer) {
  if (!stored_.has_value()) return std::nullopt;
  const int64_t head = trailer.head_seq();
  absl::StatusOr<std::optional<std::string>> held = stored_->ChainHashAt(head);
  if (!held.ok()) {
    status_ = held.status();
    return std::nullopt;
  }
  if (!held->has_value()) {
    return Problem{0, kProblemDatabaseMismatch,
                   absl::StrCat("the database holds no event at the trailer's head seq ", head,
                                ": it is an older copy than the export")};
  }
  if (**held == trailer.head_chain_hash()) return std::nullopt;
  return Problem{head, kProblemDatabaseMismatch,
                 absl::StrCat("the trailer states chain hash ",
                              HashPrefix(trailer.head_chain_hash()), " at head seq ", head,
                              ", the database's event at seq ", head, " has ", HashPrefix(**held))};
}

std::optional<Problem> ExportVerifier::CheckRecord(const ExportRecord& record,
                                                   absl::string_view line) {
  if (auto problem = chain_.Add(record.event)) return problem;
  const int64_t seq = record.event.seq;
  // The derived fields as the exporter derives them from the stored bytes.
  absl::StatusOr<std::string> rendered = RenderEvent(*format_, record.event, *options_.codec);
  if (!rendered.ok()) {
    return Problem{seq, kProblemDataMismatch,
                   absl::StrCat("the stored bytes of seq ", seq,
                                " do not decode, so its `data` cannot be checked: ",
                                rendered.status().message())};
  }
  // The line as the exporter wrote it: every derived field matches, no need to compare.
  if (*rendered == line) return std::nullopt;
  absl::StatusOr<ExportRecord> decoded = ParseRendered(*format_, *rendered);
  if (!decoded.ok()) {
    return Problem{seq, kProblemDataMismatch,
                   absl::StrCat("the line the stored bytes of seq ", seq,
                                " render to does not parse back: ", decoded.status().message())};
  }
  if (decoded->data != record.data) {
    return Problem{seq, kProblemDataMismatch,
                   absl::StrCat("the `data` of seq ", seq, " differs from its ",
                                BytesColumn(*format_, true))};
  }
  if (decoded->actor != record.actor || decoded->request_id != record.request_id) {
    return Problem{seq, kProblemDataMismatch,
                   absl::StrCat("the actor and request id of seq ", seq, " (\"", record.actor,
                                "\", \"", record.request_id, "\") differ from its ",
                                BytesColumn(*format_, false), " (\"", decoded->actor, "\", \"",
                                decoded->request_id, "\")")};
  }
  return std::nullopt;
}

std::optional<Problem> ExportVerifier::CheckEnd() {
  if (!trailer_.has_value()) {
    return Problem{0, kProblemTruncated,
                   chain_.events() == 0
                       ? std::string("the export has no events and no trailer")
                       : absl::StrCat("the export has no trailer; its last event is seq ",
                                      chain_.last_seq())};
  }
  const v1::ExportTrailer& trailer = *trailer_;
  verdict_.head_seq = trailer.head_seq();
  if (auto problem = CheckSignedTrailer(*options_.public_key, trailer, "")) return problem;
  if (options_.earlier != nullptr) {
    if (auto problem = CheckEarlierTrailer(*options_.public_key, *options_.earlier)) {
      return problem;
    }
  }
  if (auto problem = CheckCompleteness(trailer)) return problem;
  if (auto problem = CheckTrailerCounts(trailer)) return problem;
  if (auto problem = CheckTrailerHashes(trailer)) return problem;
  if (auto problem = CheckEveryLineCommitted(trailer)) return problem;
  if (auto problem = CheckStoredHead(trailer)) return problem;
  if (trailer.head_seq() < options_.min_seq) {
    return Problem{0, kProblemStale,
                   absl::StrCat("the export ends at head seq ", trailer.head_seq(),
                                ", before --min-seq ", options_.min_seq)};
  }
  return CheckEarlierHead(trailer);
}

std::optional<Problem> ExportVerifier::CheckEarlierHead(const v1::ExportTrailer& trailer) {
  if (options_.earlier == nullptr) return std::nullopt;
  const v1::ExportTrailer& earlier = *options_.earlier;
  if (auto problem = CheckReachesEarlierHead(trailer.head_seq(), earlier, "the export")) {
    return problem;
  }
  // What shows the chain hash at the earlier head's seq: the signed lines, the signed head
  // and checkpoint, the database.
  const int64_t seq = earlier.head_seq();
  std::vector<std::pair<std::string, std::string>> held;  // holder, chain_hash
  if (seq == 0) held.emplace_back("the empty log", store::ZeroHash());
  if (earlier_line_.has_value()) {
    held.emplace_back(absl::StrCat("line ", earlier_line_->first, " of this export"),
                      earlier_line_->second);
  }
  if (seq > 0 && seq == trailer.head_seq()) {
    held.emplace_back("this export's signed head", trailer.head_chain_hash());
  }
  if (trailer.has_checkpoint() && trailer.checkpoint().seq() == seq) {
    held.emplace_back("this export's checkpoint", trailer.checkpoint().chain_hash());
  }
  if (stored_.has_value() && seq > 0) {
    absl::StatusOr<std::optional<std::string>> stored = stored_->ChainHashAt(seq);
    if (!stored.ok()) {
      status_ = stored.status();
      return std::nullopt;
    }
    if (!stored->has_value()) {
      return Problem{0, kProblemStale,
                     absl::StrCat("the database holds no event at seq ", seq,
                                  ", the head of the earlier export (--previous)")};
    }
    held.emplace_back("the database", **stored);
  }
  if (held.empty()) {
    return Problem{
        0, kProblemEarlierHeadNotShown,
        absl::StrCat("this export cannot show the chain hash at seq ", seq,
                     ", the head of the earlier export (--previous): it holds no line "
                     "there, and neither its head nor its checkpoint is at that seq; "
                     "verify it with --db DB (a copy of the database), or verify an "
                     "export that holds seq ",
                     seq, " (for example `credledger export --after-seq ", seq - 1, "`)")};
  }
  for (const auto& [holder, chain_hash] : held) {
    if (auto problem = MatchEarlierHead(earlier, chain_hash, holder, verdict_)) return problem;
  }
  return std::nullopt;
}

std::optional<Problem> ExportVerifier::CheckCompleteness(const v1::ExportTrailer& trailer) const {
  const v1::ExportFilter& filter = trailer.filter();
  const bool typed = filter.types_size() > 0;
  const bool global = filter.stream().empty() && filter.stream_prefix().empty() && !typed;
  const bool lower_bound = filter.after_seq() > 0 || filter.from_time_us() > 0;
  // Without a time bound the seq bounds fix the first and last seq of a global export.
  const bool fixed_start = global && filter.from_time_us() == 0;
  const bool fixed_end = global && filter.to_time_us() == 0;
  const int64_t start = filter.after_seq() + 1;
  if (fixed_start && chain_.events() > 0 && chain_.first_seq() > start) {
    return Problem{start, kProblemGap,
                   absl::StrCat(MissingRange("seq", start, chain_.first_seq() - 1),
                                " (the export begins at seq ", chain_.first_seq(), ")")};
  }
  if (global && chain_.FirstSeqGap().has_value()) return chain_.FirstSeqGap();
  if (!typed) {
    if (auto problem = chain_.FirstStreamGap(!lower_bound)) return problem;
  }
  if (chain_.last_seq() < trailer.last_seq()) {
    // The first missing seq is known only where the seqs must be consecutive.
    const int64_t first_missing = !global ? 0 : chain_.events() > 0 ? chain_.last_seq() + 1
                                                                     : trailer.first_seq();
    return Problem{first_missing, kProblemTruncated,
                   absl::StrCat("the trailer states last seq ", trailer.last_seq(), " and ",
                                trailer.event_count(), " events, ", WhatWasRead(chain_))};
  }
  if (!fixed_end || (chain_.events() == 0 && !fixed_start)) return std::nullopt;
  const int64_t end = filter.until_seq() > 0
                          ? std::min(filter.until_seq(), trailer.head_seq())
                          : trailer.head_seq();
  const int64_t missing_from = chain_.events() > 0 ? chain_.last_seq() + 1 : start;
  if (missing_from > end) return std::nullopt;
  return Problem{missing_from, kProblemGap,
                 absl::StrCat(MissingRange("seq", missing_from, end), " (",
                              WhatWasRead(chain_), "; the filter asks for every seq up to ",
                              end, ")")};
}

std::optional<Problem> ExportVerifier::CheckTrailerCounts(
    const v1::ExportTrailer& trailer) const {
  if (trailer.first_seq() != chain_.first_seq() || trailer.last_seq() != chain_.last_seq()) {
    return Mismatch(0, absl::StrCat("the trailer states seqs ", trailer.first_seq(), "..",
                                    trailer.last_seq(), ", the export holds seqs ",
                                    chain_.first_seq(), "..", chain_.last_seq()));
  }
  if (trailer.event_count() != chain_.events()) {
    return Mismatch(0, absl::StrCat("the trailer states ", trailer.event_count(),
                                    " events, the export holds ", chain_.events()));
  }
  if (chain_.last_seq() > trailer.head_seq()) {
    return Mismatch(chain_.last_seq(), absl::StrCat("seq ", chain_.last_seq(),
                                                    " is after the trailer's head seq ",
                                                    trailer.head_seq()));
  }
  return std::nullopt;
}

std::optional<Problem> ExportVerifier::CheckTrailerHashes(const v1::ExportTrailer& trailer) {
  if (trailer.has_checkpoint()) {
    const v1::Checkpoint& checkpoint = trailer.checkpoint();
    if (checkpoint.seq() > trailer.head_seq()) {
      return Mismatch(checkpoint.seq(),
                      absl::StrCat("the trailer's checkpoint at seq ", checkpoint.seq(),
                                   " is after its head seq ", trailer.head_seq()));
    }
    if (std::optional<std::string> exported = chain_.ChainHashAt(checkpoint.seq())) {
      if (*exported != checkpoint.chain_hash()) {
        return Problem{checkpoint.seq(), kProblemCheckpointMismatch,
                       absl::StrCat("the checkpoint states chain hash ",
                                    HashPrefix(checkpoint.chain_hash()), " at seq ",
                                    checkpoint.seq(), ", the exported event at seq ",
                                    checkpoint.seq(), " has ", HashPrefix(*exported))};
      }
      verdict_.checkpoints_checked = 1;
      verdict_.checkpoint = checkpoint;
    }
  }
  std::optional<std::string> head = chain_.ChainHashAt(trailer.head_seq());
  if (head.has_value() && *head != trailer.head_chain_hash()) {
    return Mismatch(trailer.head_seq(),
                    absl::StrCat("the trailer states chain hash ",
                                 HashPrefix(trailer.head_chain_hash()), " at head seq ",
                                 trailer.head_seq(), ", the exported event at seq ",
                                 trailer.head_seq(), " has ", HashPrefix(*head)));
  }
  return CheckStreamHeads(trailer, chain_);
}

std::optional<Problem> ExportVerifier::CheckEveryLineCommitted(
    const v1::ExportTrailer& trailer) const {
  if (TrailerVersion(trailer) >= 2) {
    if (lines_.value() == trailer.lines_hash()) return std::nullopt;
    return Mismatch(
        0, absl::StrCat("the exported lines do not hash to the trailer's signed lines_hash",
                        stored_.has_value()
                            ? ", yet every line is the database's event at its seq: a line was "
                              "replaced by another stored event, or the database copy was "
                              "altered too (check it with `credledger verify --db DB` alone)"
                            : ": a line was edited, dropped, added or moved; `credledger verify "
                              "FILE --db DB` with a copy of the database names the line"));
  }
  // Version 1 signs a stream's hash only at its last exported event, and the global chain's
  // only at the head and the checkpoint. In a global export from seq 1 with every stream from
  // version 0, the stream chains bind every digest and the chain from 32 zero bytes every
  // chain hash; one that ends at a signed chain hash binds every line before it.
  if (chain_.events() == 0) return std::nullopt;
  const v1::ExportFilter& filter = trailer.filter();
  const int64_t last = chain_.last_seq();
  const bool from_seq_one =
      chain_.first_seq() == 1 && !chain_.FirstStreamGap(/*streams_from_start=*/true).has_value();
  const bool to_signed_hash = last == trailer.head_seq() ||
                              (trailer.has_checkpoint() && last == trailer.checkpoint().seq());
  std::string what;
  if (filter.types_size() > 0) {
    what = "a type-filtered export";
  } else if (!filter.stream().empty() || !filter.stream_prefix().empty()) {
    what = "a stream or stream-prefix export (its lines' global chain hashes are signed nowhere)";
  } else if (!from_seq_one && !to_signed_hash) {
    what = absl::StrCat("an export that neither starts at seq 1 nor ends at its head (seq ",
                        trailer.head_seq(), ") or its checkpoint");
  } else {
    return std::nullopt;
  }
  return Problem{0, kProblemUnsupportedTrailer,
                 absl::StrCat("a version 1 trailer does not commit to every line of ", what,
                              "; export again: a new export carries a version 2 trailer, which "
                              "does")};
}

absl::StatusOr<Verdict> VerifyExport(std::istream& in, const ExportVerifyOptions& options) {
  ExportVerifier verifier(options);
  std::string line;
  while (std::getline(in, line) && verifier.status().ok()) verifier.AddLine(line);
  Verdict verdict = verifier.Finish();
  if (!verifier.status().ok()) return verifier.status();
  return verdict;
}

}  // namespace credledger::audit
