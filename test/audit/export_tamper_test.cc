// Every line of every export is committed to by its signed trailer (docs/audit.md, "Trailer"
// and "Verifying an export, step by step"): editing, dropping, adding, duplicating or moving a
// line of an export under any filter fails verification, naming the first bad line where the
// file shows it. The exports are of a real SQLite log, rendered and signed the way the service
// writes them; the attacker recomputes every hash the file shows (verifier_testing::Relink).
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "audit/export_verifier.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/audit/verifier_test_log.h"

namespace credledger::audit {
namespace export_tamper_test {

using ::testing::AnyOf;
using ::testing::Field;
using ::testing::Optional;
using verifier_testing::IsProblem;
using verifier_testing::kCredentialIssued;
using verifier_testing::kEdge1;
using verifier_testing::kEdge2;
using verifier_testing::NoProblem;
using verifier_testing::SetActor;

constexpr char kLinesHashMismatch[] =
    "the exported lines do not hash to the trailer's signed lines_hash: a line was edited, "
    "dropped, added or moved; `credledger verify FILE --db DB` with a copy of the database "
    "names the line";

// Whether the export `filter` describes holds `e` (docs/audit.md, "Export"), the log's head
// being `head_seq`.
bool Selects(const v1::ExportFilter& filter, int64_t head_seq, const store::RecordedEvent& e) {
  const int64_t until = filter.until_seq() > 0 ? filter.until_seq() : head_seq;
  const bool typed = filter.types_size() > 0;
  return e.seq > filter.after_seq() && e.seq <= until &&
         e.recorded_at_us >= filter.from_time_us() &&
         (filter.to_time_us() == 0 || e.recorded_at_us <= filter.to_time_us()) &&
         (filter.stream().empty() || e.stream == filter.stream()) &&
         e.stream.rfind(filter.stream_prefix(), 0) == 0 &&
         (!typed ||
          std::find(filter.types().begin(), filter.types().end(), e.type) != filter.types().end());
}

class ExportTamperTest : public verifier_testing::VerifierLogTest {
 protected:
  static constexpr int kHead = kEvents + 14;

  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(VerifierLogTest::SetUp());
    ASSERT_NO_FATAL_FAILURE(AppendCredentials());
  }

  // The events of the log the export under `filter` holds.
  std::vector<store::RecordedEvent> Selected(const v1::ExportFilter& filter) {
    std::vector<store::RecordedEvent> out;
    for (const store::RecordedEvent& e : Events()) {
      if (Selects(filter, kHead, e)) out.push_back(e);
    }
    return out;
  }

  // The trailer the service signs after exporting `events` under `filter`.
  v1::ExportTrailer Trailer(const v1::ExportFilter& filter,
                            const std::vector<store::RecordedEvent>& events) {
    return MakeTrailer(filter, events, kHead, SignedCheckpointFromStore(), *key_);
  }
};

// Regression: a type filter skips seqs and stream versions, so neither the global chain nor a
// stream chain links one exported CredentialIssued to the next, and the trailer named only
// the last line of each stream. A line edited with its digest and chain_hash recomputed (and
// anything in its stream_hash) verified.
TEST_F(ExportTamperTest, RehashedCredentialIssuedLineOfATypeFilteredExportFails) {
  v1::ExportFilter filter;
  filter.add_types(kCredentialIssued);
  std::vector<store::RecordedEvent> events = Selected(filter);
  ASSERT_EQ(events.size(), 7u);
  const v1::ExportTrailer trailer = Trailer(filter, events);
  // edge-2's first credential: edge-2 has a later one in the export.
  store::RecordedEvent& forged = events[1];
  ASSERT_EQ(forged.stream, kEdge2);
  v1::CredentialIssued issued;
  ASSERT_TRUE(issued.ParseFromString(forged.payload));
  issued.set_token_fingerprint("0123456789abcdef");
  issued.mutable_secret()->set_name("solar-agent-forged");
  forged.payload = store::SerializeDeterministic(issued);
  forged.digest = verifier_testing::SpecDigest(forged);
  forged.chain_hash = verifier_testing::SpecSha256(forged.prev_chain_hash + forged.digest);
  forged.stream_hash = std::string(32, 'x');

  for (ExportFormat format : {ExportFormat::kJsonLines, ExportFormat::kCloudEvents}) {
    const std::vector<std::string> lines = Render(format, events, trailer);
    ASSERT_THAT(lines[1], ::testing::HasSubstr("solar-agent-forged"));
    EXPECT_THAT(Verify(lines).problem, IsProblem(0, kProblemTrailerMismatch, kLinesHashMismatch));
  }
}

// One filter of the table below.
struct FilterCase {
  std::string name;
  v1::ExportFilter filter;
};

// Every filter kind of `credledger export` and combinations of them, over the test log.
std::vector<FilterCase> FilterCases(const std::vector<store::RecordedEvent>& all) {
  std::vector<FilterCase> cases(11);
  cases[0].name = "whole log";
  cases[1].name = "type";
  cases[1].filter.add_types(kCredentialIssued);
  cases[2].name = "two types";
  cases[2].filter.add_types(kCredentialIssued);
  cases[2].filter.add_types(verifier_testing::kRotationRequested);
  cases[3].name = "stream";
  cases[3].filter.set_stream(kEdge1);
  cases[4].name = "prefix";
  cases[4].filter.set_stream_prefix("target/demo/");
  cases[5].name = "seq range";
  cases[5].filter.set_after_seq(5);
  cases[5].filter.set_until_seq(33);
  cases[6].name = "time range";
  cases[6].filter.set_from_time_us(all[8].recorded_at_us);
  cases[6].filter.set_to_time_us(all[34].recorded_at_us);
  cases[7].name = "stream after a seq";
  cases[7].filter.set_stream(kEdge1);
  cases[7].filter.set_after_seq(12);
  cases[8].name = "prefix up to a seq";
  cases[8].filter.set_stream_prefix("target/");
  cases[8].filter.set_until_seq(33);
  cases[9].name = "type from a time";
  cases[9].filter.add_types(kCredentialIssued);
  cases[9].filter.set_from_time_us(all[31].recorded_at_us);
  cases[10].name = "type and stream";
  cases[10].filter.add_types(kCredentialIssued);
  cases[10].filter.set_stream(kEdge1);
  return cases;
}

// The genuine event of `all` nearest after `after` (by seq) that `selected` does not hold;
// nullptr when there is none.
const store::RecordedEvent* Unselected(const std::vector<store::RecordedEvent>& all,
                                       const std::vector<store::RecordedEvent>& selected,
                                       int64_t after) {
  for (const store::RecordedEvent& e : all) {
    if (e.seq <= after) continue;
    const bool held = std::any_of(selected.begin(), selected.end(),
                                  [&](const store::RecordedEvent& s) { return s.seq == e.seq; });
    if (!held) return &e;
  }
  return nullptr;
}

// `events` with `extra` put in seq order.
void InsertInOrder(std::vector<store::RecordedEvent>& events, const store::RecordedEvent& extra) {
  auto at = std::find_if(events.begin(), events.end(),
                         [&](const store::RecordedEvent& e) { return e.seq > extra.seq; });
  events.insert(at, extra);
}

TEST_F(ExportTamperTest, EveryTamperingOfEveryFilterKindFails) {
  const std::vector<store::RecordedEvent> all = Events();
  ASSERT_EQ(all.size(), static_cast<size_t>(kHead));
  for (const FilterCase& c : FilterCases(all)) {
    SCOPED_TRACE(c.name);
    const std::vector<store::RecordedEvent> genuine = Selected(c.filter);
    ASSERT_GE(genuine.size(), 3u);
    const v1::ExportTrailer trailer = Trailer(c.filter, genuine);
    ASSERT_THAT(Verify(Render(ExportFormat::kJsonLines, genuine, trailer)).problem, NoProblem());
    const auto verify = [&](const std::vector<store::RecordedEvent>& events) {
      return Verify(Render(ExportFormat::kJsonLines, events, trailer)).problem;
    };
    for (size_t m = 0; m < genuine.size(); ++m) {
      SCOPED_TRACE(absl::StrCat("line ", m + 1));
      const int64_t seq = genuine[m].seq;

      // An edited actor, every hash the file shows recomputed.
      std::vector<store::RecordedEvent> edited = genuine;
      SetActor(edited[m], "mallory");
      verifier_testing::Relink(edited);
      EXPECT_THAT(verify(edited),
                  Optional(Field(&Problem::kind,
                                 AnyOf(kProblemTrailerMismatch, kProblemCheckpointMismatch))))
          << "edited";

      // Another global chain link: a prev_chain_hash no line before it shows, and the
      // chain_hash that follows from it.
      if (m == 0 || genuine[m - 1].seq != seq - 1) {
        std::vector<store::RecordedEvent> relinked = genuine;
        relinked[m].prev_chain_hash = std::string(32, 'p');
        verifier_testing::Relink(relinked);
        EXPECT_THAT(
            verify(relinked),
            Optional(Field(&Problem::kind, AnyOf(kProblemTrailerMismatch,
                                                 kProblemCheckpointMismatch, kProblemChainBreak))))
            << "relinked";
      }

      std::vector<store::RecordedEvent> dropped = genuine;
      dropped.erase(dropped.begin() + static_cast<std::ptrdiff_t>(m));
      EXPECT_TRUE(verify(dropped).has_value()) << "dropped";

      std::vector<store::RecordedEvent> duplicated = genuine;
      duplicated.insert(duplicated.begin() + static_cast<std::ptrdiff_t>(m), genuine[m]);
      EXPECT_THAT(verify(duplicated),
                  IsProblem(seq, kProblemReordering, absl::StrCat("seq ", seq, " appears twice")));

      if (m + 1 < genuine.size()) {
        std::vector<store::RecordedEvent> moved = genuine;
        std::swap(moved[m], moved[m + 1]);
        EXPECT_THAT(verify(moved),
                    IsProblem(seq, kProblemReordering,
                              absl::StrCat("seq ", seq, " follows seq ", genuine[m + 1].seq)));
      }

      // A genuine line the filter does not select, added, or put in the place of another.
      const store::RecordedEvent* extra = Unselected(all, genuine, m == 0 ? 0 : genuine[m - 1].seq);
      if (extra == nullptr) continue;  // every event after it is selected
      std::vector<store::RecordedEvent> added = genuine;
      InsertInOrder(added, *extra);
      EXPECT_TRUE(verify(added).has_value()) << "added seq " << extra->seq;
      std::vector<store::RecordedEvent> replaced = genuine;
      replaced.erase(replaced.begin() + static_cast<std::ptrdiff_t>(m));
      InsertInOrder(replaced, *extra);
      EXPECT_TRUE(verify(replaced).has_value()) << "seq " << seq << " replaced by " << extra->seq;
    }
  }
}

// --- Version 1 trailers, which sign no lines_hash. ---

TEST_F(ExportTamperTest, VersionOneGlobalExportsFromSeqOneOrToASignedHashStillVerify) {
  const std::vector<store::RecordedEvent> all = Events();
  v1::ExportFilter resumed;
  resumed.set_after_seq(12);
  v1::ExportFilter up_to_the_checkpoint;
  up_to_the_checkpoint.set_after_seq(12);
  up_to_the_checkpoint.set_until_seq(20);
  v1::ExportFilter from_the_start;
  from_the_start.set_until_seq(33);
  for (const v1::ExportFilter& filter :
       {v1::ExportFilter(), resumed, up_to_the_checkpoint, from_the_start}) {
    SCOPED_TRACE(filter.ShortDebugString());
    const std::vector<store::RecordedEvent> events = Selected(filter);
    const v1::ExportTrailer trailer =
        MakeTrailer(filter, events, kHead, SignedCheckpointFromStore(), *key_, /*version=*/1);
    ASSERT_EQ(trailer.version(), 0u);
    EXPECT_THAT(Verify(Render(ExportFormat::kJsonLines, events, trailer)).problem, NoProblem());

    // Under version 1's rules an edit still breaks the chain up to the signed hash.
    std::vector<store::RecordedEvent> edited = events;
    SetActor(edited[2], "mallory");
    verifier_testing::Relink(edited);
    EXPECT_THAT(Verify(Render(ExportFormat::kJsonLines, edited, trailer)).problem,
                Optional(Field(&Problem::kind,
                               AnyOf(kProblemTrailerMismatch, kProblemCheckpointMismatch))));
  }
}

TEST_F(ExportTamperTest, VersionOneTrailerOfATypeFilteredExportIsRefused) {
  v1::ExportFilter filter;
  filter.add_types(kCredentialIssued);
  const std::vector<store::RecordedEvent> events = Selected(filter);
  const v1::ExportTrailer trailer =
      MakeTrailer(filter, events, kHead, SignedCheckpointFromStore(), *key_, /*version=*/1);

  EXPECT_THAT(Verify(Render(ExportFormat::kCloudEvents, events, trailer)).problem,
              IsProblem(0, kProblemUnsupportedTrailer,
                        "a version 1 trailer does not commit to every line of a type-filtered "
                        "export; export again: a new export carries a version 2 trailer, which "
                        "does"));
}

// The stream and prefix chains of a version 1 trailer do not cover every line: with a lower
// bound, a stream's first exported line links to nothing signed; without one, no line's
// global chain hashes are signed. Nor does the global chain when it neither starts at seq 1
// nor ends at the head or the checkpoint. An edit of such a line passes every other check of
// version 1: its verdict is the refusal of the genuine export, word for word.
TEST_F(ExportTamperTest, VersionOneTrailersLeaveLinesOfOtherFiltersUncommittedAndAreRefused) {
  const std::vector<store::RecordedEvent> all = Events();
  struct Case {
    std::string name;
    v1::ExportFilter filter;
    // Edits the line the version 1 trailer leaves uncommitted.
    std::function<void(std::vector<store::RecordedEvent>&)> edit;
    std::string what;
  };
  std::vector<Case> cases(3);
  cases[0].name = "stream after a seq: its first line";
  cases[0].filter.set_stream(kEdge1);
  cases[0].filter.set_after_seq(12);
  cases[0].edit = [](std::vector<store::RecordedEvent>& events) {
    SetActor(events[0], "mallory");
    events[0].digest = verifier_testing::SpecDigest(events[0]);
    events[0].chain_hash =
        verifier_testing::SpecSha256(events[0].prev_chain_hash + events[0].digest);
  };
  cases[0].what =
      "a stream or stream-prefix export (its lines' global chain hashes are signed "
      "nowhere)";
  cases[1].name = "prefix: a line's global chain link";
  cases[1].filter.set_stream_prefix("target/demo/");
  cases[1].edit = [](std::vector<store::RecordedEvent>& events) {
    events[4].prev_chain_hash = std::string(32, 'p');
    verifier_testing::Relink(events);
  };
  cases[1].what = cases[0].what;
  cases[2].name = "seqs 23..33: its first line";
  cases[2].filter.set_after_seq(22);
  cases[2].filter.set_until_seq(33);
  cases[2].edit = [](std::vector<store::RecordedEvent>& events) {
    SetActor(events[0], "mallory");
    verifier_testing::Relink(events);
  };
  cases[2].what =
      "an export that neither starts at seq 1 nor ends at its head (seq 44) or its checkpoint";
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::vector<store::RecordedEvent> genuine = Selected(c.filter);
    const v1::ExportTrailer trailer =
        MakeTrailer(c.filter, genuine, kHead, SignedCheckpointFromStore(), *key_, /*version=*/1);
    std::vector<store::RecordedEvent> edited = genuine;
    c.edit(edited);
    ASSERT_TRUE(Render(ExportFormat::kJsonLines, edited, trailer) !=
                Render(ExportFormat::kJsonLines, genuine, trailer));

    const std::string refusal =
        absl::StrCat("a version 1 trailer does not commit to every line of ", c.what,
                     "; export again: a new export carries a version 2 trailer, which does");
    EXPECT_THAT(Verify(Render(ExportFormat::kJsonLines, genuine, trailer)).problem,
                IsProblem(0, kProblemUnsupportedTrailer, refusal));
    EXPECT_THAT(Verify(Render(ExportFormat::kJsonLines, edited, trailer)).problem,
                IsProblem(0, kProblemUnsupportedTrailer, refusal));
  }
}

TEST_F(ExportTamperTest, UnknownTrailerVersionIsRefused) {
  const std::vector<store::RecordedEvent> events = Events();
  v1::ExportTrailer trailer = MakeTrailer({}, events, kHead, SignedCheckpointFromStore(), *key_);
  trailer.set_version(3);

  EXPECT_THAT(Verify(Render(ExportFormat::kJsonLines, events, trailer)).problem,
              IsProblem(0, kProblemUnsupportedTrailer,
                        "export trailer version 3 is not known here (versions 1 and 2 are); "
                        "verify it with a credledger release that knows it"));
}

}  // namespace export_tamper_test
}  // namespace credledger::audit
