#include "audit/stored_events.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/quote_cut.h"
#include "common/sha256.h"
#include "common/status_macros.h"
#include "store/log_hash.h"

namespace credledger::audit {
namespace {

// Events per read transaction.
constexpr int kPage = 512;
// Longest part of a stream or type quoted in a problem.
constexpr size_t kShownTextBytes = 80;

// One stored field as the export and the database hold it, in words.
struct FieldDifference {
  const char* field;
  std::string exported;
  std::string stored;
};

std::string Text(absl::string_view value) { return common::QuoteCut(value, kShownTextBytes); }

// Stored bytes by their length and hash: they may be long, and are compared, not read.
std::string Bytes(absl::string_view value) {
  return absl::StrCat(value.size(), " bytes, SHA-256 ",
                      HashPrefix(common::AsBytes(common::Sha256Of(value))));
}

// The first stored field in which `a` (exported) and `b` (stored) differ, in the order of
// docs/log-format.md's table.
std::optional<FieldDifference> FirstDifference(const store::RecordedEvent& a,
                                               const store::RecordedEvent& b) {
  if (a.stream != b.stream) return FieldDifference{"stream", Text(a.stream), Text(b.stream)};
  if (a.stream_version != b.stream_version) {
    return FieldDifference{"stream_version", absl::StrCat(a.stream_version),
                           absl::StrCat(b.stream_version)};
  }
  if (a.event_id != b.event_id) {
    return FieldDifference{"event_id", HashPrefix(a.event_id), HashPrefix(b.event_id)};
  }
  if (a.type != b.type) return FieldDifference{"type", Text(a.type), Text(b.type)};
  if (a.schema_version != b.schema_version) {
    return FieldDifference{"schema_version", absl::StrCat(a.schema_version),
                           absl::StrCat(b.schema_version)};
  }
  if (a.recorded_at_us != b.recorded_at_us) {
    return FieldDifference{"recorded_at_us", absl::StrCat(a.recorded_at_us),
                           absl::StrCat(b.recorded_at_us)};
  }
  if (a.metadata != b.metadata) {
    return FieldDifference{"metadata", Bytes(a.metadata), Bytes(b.metadata)};
  }
  if (a.payload != b.payload) return FieldDifference{"payload", Bytes(a.payload), Bytes(b.payload)};
  const std::pair<const char*, std::pair<const std::string*, const std::string*>> hashes[] = {
      {"digest", {&a.digest, &b.digest}},
      {"prev_chain_hash", {&a.prev_chain_hash, &b.prev_chain_hash}},
      {"chain_hash", {&a.chain_hash, &b.chain_hash}},
      {"stream_hash", {&a.stream_hash, &b.stream_hash}},
  };
  for (const auto& [field, values] : hashes) {
    if (*values.first != *values.second) {
      return FieldDifference{field, HashPrefix(*values.first), HashPrefix(*values.second)};
    }
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<const store::RecordedEvent*> StoredEvents::At(int64_t seq) {
  const bool held = !page_.empty() && page_.front().seq <= seq && seq <= page_.back().seq;
  if (!held) {
    ASSIGN_OR_RETURN(page_, log_.ReadAll(seq - 1, kPage));
    if (page_.empty() || page_.front().seq != seq) return nullptr;
  }
  const store::RecordedEvent& event = page_[seq - page_.front().seq];
  return event.seq == seq ? &event : nullptr;
}

absl::StatusOr<std::optional<Problem>> StoredEvents::Compare(const store::RecordedEvent& exported,
                                                             int64_t line) {
  ASSIGN_OR_RETURN(const store::RecordedEvent* stored, At(exported.seq));
  const std::string where = absl::StrCat("line ", line, " (seq ", exported.seq, "): ");
  if (stored == nullptr) {
    return Problem{exported.seq, kProblemDatabaseMismatch,
                   absl::StrCat(where, "the database holds no event at seq ", exported.seq)};
  }
  std::optional<FieldDifference> difference = FirstDifference(exported, *stored);
  if (!difference.has_value()) return std::optional<Problem>();
  return Problem{
      exported.seq, kProblemDatabaseMismatch,
      absl::StrCat(where, "its ", difference->field, " differs from the database's event at seq ",
                   exported.seq, ": the export has ", difference->exported, ", the database ",
                   difference->stored)};
}

absl::StatusOr<std::optional<std::string>> StoredEvents::ChainHashAt(int64_t seq) {
  if (seq == 0) return std::optional<std::string>(store::ZeroHash());
  ASSIGN_OR_RETURN(const store::RecordedEvent* stored, At(seq));
  if (stored == nullptr) return std::optional<std::string>();
  return std::optional<std::string>(stored->chain_hash);
}

}  // namespace credledger::audit
