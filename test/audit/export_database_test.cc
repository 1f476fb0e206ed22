// An export checked against a database copy of the log (`credledger verify FILE --db DB`;
// docs/audit.md, "Verifying an export, step by step"): every exported event must be the stored
// one at its seq, the first differing line and field are named, and the copy must hold the
// trailer's head. Copies are real SQLite files taken while the log was closed.
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "audit/export_verifier.h"
#include "audit/stored_events.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/audit/verifier_test_log.h"

namespace credledger::audit {
namespace export_database_test {

using ::testing::HasSubstr;
using verifier_testing::IsProblem;
using verifier_testing::NoProblem;
using verifier_testing::Prefix;
using verifier_testing::SpecSha256;

// The export filter of the RotationRequested events, and the store's selection of them.
std::pair<v1::ExportFilter, store::EventFilter> RotationRequests() {
  std::pair<v1::ExportFilter, store::EventFilter> filter;
  filter.first.add_types(verifier_testing::kRotationRequested);
  filter.second.types = {verifier_testing::kRotationRequested};
  return filter;
}

class ExportDatabaseTest : public verifier_testing::VerifierLogTest {
 protected:
  // The export under `filter` of the log as it is, with a trailer of its head.
  std::vector<std::string> ExportOf(const v1::ExportFilter& filter,
                                    const std::vector<store::RecordedEvent>& events) {
    return Render(
        ExportFormat::kJsonLines, events,
        MakeTrailer(filter, events, store_->HeadSeq(), SignedCheckpointFromStore(), *key_));
  }

  Verdict VerifyAgainst(const std::vector<std::string>& lines, store::EventStore& log) {
    ExportVerifyOptions options;
    options.log = &log;
    return VerifyWith(lines, options);
  }
};

TEST_F(ExportDatabaseTest, GenuineExportsMatchTheirDatabase) {
  const auto [typed, typed_selection] = RotationRequests();
  const std::filesystem::path copy = CopyLog("copy");
  std::unique_ptr<store::SqliteEventStore> database = OpenCopy(copy);
  ASSERT_NE(database, nullptr);

  EXPECT_THAT(VerifyAgainst(ExportOf({}, Events()), *database).problem, NoProblem());
  EXPECT_THAT(VerifyAgainst(ExportOf(typed, Events(typed_selection)), *database).problem,
              NoProblem());
}

TEST_F(ExportDatabaseTest, ConsistentlyEditedLineIsNamedWithItsField) {
  // The edit that only the signed lines_hash shows without a database.
  const auto [typed, selection] = RotationRequests();
  const std::vector<store::RecordedEvent> genuine = Events(selection);
  const v1::ExportTrailer trailer =
      MakeTrailer(typed, genuine, kEvents, SignedCheckpointFromStore(), *key_);
  std::vector<store::RecordedEvent> edited = genuine;
  verifier_testing::SetActor(edited[1], "mallory");
  verifier_testing::Relink(edited);
  const std::vector<std::string> lines = Render(ExportFormat::kJsonLines, edited, trailer);
  ASSERT_THAT(Verify(lines).problem,
              IsProblem(0, kProblemTrailerMismatch, HasSubstr("lines_hash")));

  const int64_t seq = genuine[1].seq;
  EXPECT_THAT(VerifyAgainst(lines, *store_).problem,
              IsProblem(seq, kProblemDatabaseMismatch,
                        absl::StrCat("line 2 (seq ", seq,
                                     "): its metadata differs from the database's event at seq ",
                                     seq, ": the export has ", edited[1].metadata.size(),
                                     " bytes, SHA-256 ", Prefix(SpecSha256(edited[1].metadata)),
                                     ", the database ", genuine[1].metadata.size(),
                                     " bytes, SHA-256 ", Prefix(SpecSha256(genuine[1].metadata)))));
}

TEST_F(ExportDatabaseTest, EveryStoredFieldIsCompared) {
  const store::RecordedEvent stored = EventAt(12);
  const std::vector<std::pair<std::string, std::function<void(store::RecordedEvent&)>>> edits = {
      {"stream", [](store::RecordedEvent& e) { e.stream = "target/demo/edge-9"; }},
      {"stream_version", [](store::RecordedEvent& e) { ++e.stream_version; }},
      {"event_id", [](store::RecordedEvent& e) { e.event_id[0] ^= 1; }},
      {"type", [](store::RecordedEvent& e) { e.type = "credledger.v1.TargetRegistered"; }},
      {"schema_version", [](store::RecordedEvent& e) { ++e.schema_version; }},
      {"recorded_at_us", [](store::RecordedEvent& e) { ++e.recorded_at_us; }},
      {"metadata", [](store::RecordedEvent& e) { e.metadata.push_back('x'); }},
      {"payload", [](store::RecordedEvent& e) { e.payload.push_back('x'); }},
      {"digest", [](store::RecordedEvent& e) { e.digest[31] ^= 1; }},
      {"prev_chain_hash", [](store::RecordedEvent& e) { e.prev_chain_hash[31] ^= 1; }},
      {"chain_hash", [](store::RecordedEvent& e) { e.chain_hash[31] ^= 1; }},
      {"stream_hash", [](store::RecordedEvent& e) { e.stream_hash[31] ^= 1; }},
  };
  StoredEvents database(*store_);
  ASSERT_OK_AND_ASSIGN(std::optional<Problem> same, database.Compare(stored, 7));
  EXPECT_THAT(same, NoProblem());
  for (const auto& [field, edit] : edits) {
    store::RecordedEvent exported = stored;
    edit(exported);
    ASSERT_OK_AND_ASSIGN(std::optional<Problem> problem, database.Compare(exported, 7));
    EXPECT_THAT(problem, IsProblem(12, kProblemDatabaseMismatch,
                                   ::testing::StartsWith(absl::StrCat(
                                       "line 7 (seq 12): its ", field,
                                       " differs from the database's event at seq 12: "))));
  }
}

TEST_F(ExportDatabaseTest, OlderCopyLacksTheLaterLinesAndTheHead) {
  const std::filesystem::path older = CopyLog("older");
  ASSERT_NO_FATAL_FAILURE(AppendEvents(5));
  std::unique_ptr<store::SqliteEventStore> database = OpenCopy(older);
  ASSERT_NE(database, nullptr);

  EXPECT_THAT(VerifyAgainst(ExportOf({}, Events()), *database).problem,
              IsProblem(31, kProblemDatabaseMismatch,
                        "line 31 (seq 31): the database holds no event at seq 31"));
  v1::ExportFilter until_20;
  until_20.set_until_seq(20);
  const std::vector<store::RecordedEvent> all = Events();
  EXPECT_THAT(
      VerifyAgainst(ExportOf(until_20, {all.begin(), all.begin() + 20}), *database).problem,
      IsProblem(0, kProblemDatabaseMismatch,
                "the database holds no event at the trailer's head seq 35: it is an older copy "
                "than the export"));
}

TEST_F(ExportDatabaseTest, CopyOfAnotherHistoryDiffersAtTheFork) {
  // Two histories from seq 30 on: the copy's seq 31, then the log's own seq 31.
  std::filesystem::path other;
  store::RecordedEvent other_31;
  ASSERT_NO_FATAL_FAILURE(Fork(
      [&] {
        other = CopyLog("other");
        other_31 = EventAt(31);
      },
      2));
  const store::RecordedEvent own_31 = EventAt(31);
  ASSERT_NE(own_31.chain_hash, other_31.chain_hash);
  std::unique_ptr<store::SqliteEventStore> database = OpenCopy(other);
  ASSERT_NE(database, nullptr);

  EXPECT_THAT(VerifyAgainst(ExportOf({}, Events()), *database).problem,
              IsProblem(31, kProblemDatabaseMismatch, HasSubstr("line 31 (seq 31): its ")));
  v1::ExportFilter until_30;
  until_30.set_until_seq(30);
  v1::ExportFilter until_31 = until_30;
  until_31.set_until_seq(31);
  const std::vector<store::RecordedEvent> all = Events();
  const std::vector<std::string> lines =
      Render(ExportFormat::kJsonLines, {all.begin(), all.begin() + 30},
             MakeTrailer(until_30, {all.begin(), all.begin() + 30}, 31, SignedCheckpointFromStore(),
                         *key_));
  EXPECT_THAT(VerifyAgainst(lines, *database).problem,
              IsProblem(31, kProblemDatabaseMismatch,
                        absl::StrCat("the trailer states chain hash ", Prefix(own_31.chain_hash),
                                     " at head seq 31, the database's event at seq 31 has ",
                                     Prefix(other_31.chain_hash))));
}

TEST_F(ExportDatabaseTest, LineReplacedByAnotherStoredEventIsALinesHashMismatch) {
  const auto [typed, selection] = RotationRequests();
  const std::vector<store::RecordedEvent> genuine = Events(selection);
  // A line in the place of another stored event that the filter does not select, between
  // its neighbours; both streams have later lines, so the trailer's stream heads still hold.
  const auto has_later_line = [&](size_t i, const std::string& stream) {
    for (size_t j = i + 1; j < genuine.size(); ++j) {
      if (genuine[j].stream == stream) return true;
    }
    return false;
  };
  std::vector<store::RecordedEvent> replaced = genuine;
  bool found = false;
  for (size_t i = 1; i + 1 < genuine.size() && !found; ++i) {
    if (!has_later_line(i, genuine[i].stream)) continue;
    for (int64_t seq = genuine[i - 1].seq + 1; seq < genuine[i + 1].seq && !found; ++seq) {
      const store::RecordedEvent other = EventAt(seq);
      found = other.type != verifier_testing::kRotationRequested && has_later_line(i, other.stream);
      if (found) replaced[i] = other;
    }
  }
  ASSERT_TRUE(found);
  const std::vector<std::string> lines =
      Render(ExportFormat::kJsonLines, replaced,
             MakeTrailer(typed, genuine, kEvents, SignedCheckpointFromStore(), *key_));

  EXPECT_THAT(VerifyAgainst(lines, *store_).problem,
              IsProblem(0, kProblemTrailerMismatch,
                        "the exported lines do not hash to the trailer's signed lines_hash, yet "
                        "every line is the database's event at its seq: a line was replaced by "
                        "another stored event, or the database copy was altered too (check it "
                        "with `credledger verify --db DB` alone)"));
}

}  // namespace export_database_test
}  // namespace credledger::audit
