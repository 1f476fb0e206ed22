// `credledger verify --previous` (docs/audit.md, "Keeping exports consistent"): the trailer
// of an earlier export, read from that export or a file of its trailer line, must be signed,
// and a newer export or a database copy must still hold its head: not behind it (stale), the
// same chain_hash at its seq (a fork otherwise), shown by a line, the signed head or
// checkpoint, or the database.
#include "audit/earlier_export.h"

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "audit/export_verifier.h"
#include "audit/log_verifier.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/audit/verifier_test_log.h"

namespace credledger::audit {
namespace earlier_export_test {

using ::testing::HasSubstr;
using testing::StatusIs;
using verifier_testing::IsProblem;
using verifier_testing::NoProblem;
using verifier_testing::Prefix;

class EarlierExportTest : public verifier_testing::VerifierLogTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(VerifierLogTest::SetUp());
    keys_.Add(key_->public_key());
  }

  // VerifyLog's verdict on the log, which passes.
  Verdict LogVerdict() {
    absl::StatusOr<Verdict> verdict = VerifyLog(*store_, keys_, 0);
    EXPECT_OK(verdict);
    return verdict.ok() ? *std::move(verdict) : Verdict();
  }

  // The trailer of an export made when the log's head was `head_seq` (the whole log then).
  v1::ExportTrailer EarlierTrailer(int64_t head_seq) {
    const std::vector<store::RecordedEvent> all = Events();
    const std::vector<store::RecordedEvent> events(all.begin(), all.begin() + head_seq);
    return MakeTrailer({}, events, head_seq, std::nullopt, *key_);
  }

  // The export under `filter` of the events `selection` picks, at the log's head.
  std::vector<std::string> ExportOf(const v1::ExportFilter& filter,
                                    const store::EventFilter& selection = {}) {
    const std::vector<store::RecordedEvent> events = Events(selection);
    return Render(
        ExportFormat::kJsonLines, events,
        MakeTrailer(filter, events, store_->HeadSeq(), SignedCheckpointFromStore(), *key_));
  }

  Verdict VerifyAfter(const std::vector<std::string>& lines, const v1::ExportTrailer& earlier,
                      store::EventStore* log = nullptr) {
    ExportVerifyOptions options;
    options.earlier = &earlier;
    options.log = log;
    return VerifyWith(lines, options);
  }

  KeyRing keys_;
};

// The edge-1 stream only: seqs 2, 7, 12, 17, 22, 27 of the verifier log.
std::pair<v1::ExportFilter, store::EventFilter> Edge1() {
  std::pair<v1::ExportFilter, store::EventFilter> filter;
  filter.first.set_stream(verifier_testing::kEdge1);
  filter.second.stream = verifier_testing::kEdge1;
  return filter;
}

TEST_F(EarlierExportTest, TrailerIsReadFromAnExportOrAFileOfItsTrailerLine) {
  const v1::ExportTrailer earlier = EarlierTrailer(25);
  for (ExportFormat format : {ExportFormat::kJsonLines, ExportFormat::kCloudEvents}) {
    const std::vector<store::RecordedEvent> all = Events();
    std::stringstream whole;
    for (const std::string& line : Render(format, {all.begin(), all.begin() + 25}, earlier)) {
      whole << line << "\r\n";
    }
    whole << "\n";
    ASSERT_OK_AND_ASSIGN(v1::ExportTrailer read, ReadLastTrailer(whole));
    EXPECT_EQ(read.SerializeAsString(), earlier.SerializeAsString());
    std::stringstream alone(RenderTrailer(format, earlier));
    ASSERT_OK_AND_ASSIGN(read, ReadLastTrailer(alone));
    EXPECT_EQ(read.SerializeAsString(), earlier.SerializeAsString());
  }
}

TEST_F(EarlierExportTest, FileWithoutATrailerLineIsRefused) {
  std::stringstream empty("\n\n");
  EXPECT_THAT(ReadLastTrailer(empty),
              StatusIs(absl::StatusCode::kInvalidArgument, "it holds no line"));
  std::stringstream cut(ExportOf({})[3]);
  EXPECT_THAT(ReadLastTrailer(cut), StatusIs(absl::StatusCode::kInvalidArgument,
                                             "its last line is not an export trailer"));
  std::stringstream csv("seq,recorded_at\r\n");
  EXPECT_THAT(ReadLastTrailer(csv),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a JSON object")));
}

TEST_F(EarlierExportTest, ExportHoldingTheEarlierHeadConfirmsIt) {
  const v1::ExportTrailer earlier = EarlierTrailer(25);
  const Verdict verdict = VerifyAfter(ExportOf({}), earlier);

  EXPECT_THAT(verdict.problem, NoProblem());
  EXPECT_THAT(FormatVerdict(verdict),
              HasSubstr("\nearlier head confirmed: seq 25 has chain hash " +
                        Prefix(EventAt(25).chain_hash) + " in line 25 of this export\n"));
}

TEST_F(EarlierExportTest, SignedHeadOrCheckpointOfAFilteredExportConfirmsIt) {
  const auto [filter, selection] = Edge1();
  Verdict verdict = VerifyAfter(ExportOf(filter, selection), EarlierTrailer(kEvents));
  EXPECT_THAT(verdict.problem, NoProblem());
  ASSERT_TRUE(verdict.earlier_head.has_value());
  EXPECT_THAT(verdict.earlier_head->holders, ::testing::ElementsAre("this export's signed head"));

  verdict = VerifyAfter(ExportOf(filter, selection), EarlierTrailer(20));
  EXPECT_THAT(verdict.problem, NoProblem());
  ASSERT_TRUE(verdict.earlier_head.has_value());
  EXPECT_THAT(verdict.earlier_head->holders, ::testing::ElementsAre("this export's checkpoint"));
}

TEST_F(EarlierExportTest, ExportThatCannotShowTheEarlierHeadSaysSoAndTheDatabaseCan) {
  const auto [filter, selection] = Edge1();
  const std::vector<std::string> lines = ExportOf(filter, selection);

  EXPECT_THAT(VerifyAfter(lines, EarlierTrailer(25)).problem,
              IsProblem(0, kProblemEarlierHeadNotShown,
                        "this export cannot show the chain hash at seq 25, the head of the "
                        "earlier export (--previous): it holds no line there, and neither its "
                        "head nor its checkpoint is at that seq; verify it with --db DB (a copy "
                        "of the database), or verify an export that holds seq 25 (for example "
                        "`credledger export --after-seq 24`)"));
  const Verdict with_database = VerifyAfter(lines, EarlierTrailer(25), store_.get());
  EXPECT_THAT(with_database.problem, NoProblem());
  ASSERT_TRUE(with_database.earlier_head.has_value());
  EXPECT_THAT(with_database.earlier_head->holders, ::testing::ElementsAre("the database"));
}

TEST_F(EarlierExportTest, ExportBehindTheEarlierHeadIsStale) {
  const std::vector<store::RecordedEvent> all = Events();
  const std::vector<store::RecordedEvent> prefix(all.begin(), all.begin() + 25);
  const std::vector<std::string> older =
      Render(ExportFormat::kJsonLines, prefix, MakeTrailer({}, prefix, 25, std::nullopt, *key_));

  EXPECT_THAT(VerifyAfter(older, EarlierTrailer(kEvents)).problem,
              IsProblem(0, kProblemStale,
                        "the export ends at head seq 25, before seq 30, the head of the earlier "
                        "export (--previous)"));
}

TEST_F(EarlierExportTest, AnotherHistoryAtTheEarlierHeadIsAFork) {
  // The earlier export saw seq 31 of one history; the log now holds another one.
  v1::ExportTrailer earlier;
  ASSERT_NO_FATAL_FAILURE(Fork([&] { earlier = EarlierTrailer(31); }, 2));
  const std::string now_31 = EventAt(31).chain_hash;
  ASSERT_NE(now_31, earlier.head_chain_hash());
  const std::string fork =
      absl::StrCat("the log no longer holds the earlier export's head: seq 31 had chain hash ",
                   Prefix(earlier.head_chain_hash()), ", ");

  EXPECT_THAT(VerifyAfter(ExportOf({}), earlier).problem,
              IsProblem(31, kProblemFork,
                        absl::StrCat(fork, "line 31 of this export has ", Prefix(now_31))));
  Verdict verdict = LogVerdict();
  ASSERT_THAT(verdict.problem, NoProblem());
  ASSERT_OK(CheckEarlierInLog(*store_, keys_, earlier, verdict));
  EXPECT_THAT(verdict.problem,
              IsProblem(31, kProblemFork, absl::StrCat(fork, "the database has ", Prefix(now_31))));
}

TEST_F(EarlierExportTest, DatabaseAloneConfirmsTheEarlierHeadOrIsStale) {
  Verdict verdict = LogVerdict();
  ASSERT_OK(CheckEarlierInLog(*store_, keys_, EarlierTrailer(25), verdict));
  EXPECT_THAT(verdict.problem, NoProblem());
  EXPECT_THAT(FormatVerdict(verdict),
              HasSubstr("\nearlier head confirmed: seq 25 has chain hash " +
                        Prefix(EventAt(25).chain_hash) + " in the database\n"));

  const v1::ExportTrailer later = EarlierTrailer(kEvents);
  const std::filesystem::path older = CopyLog("older");
  std::unique_ptr<store::SqliteEventStore> database = OpenCopy(older);
  ASSERT_NE(database, nullptr);
  ASSERT_NO_FATAL_FAILURE(AppendEvents(2));
  const v1::ExportTrailer newer = EarlierTrailer(kEvents + 2);
  verdict = Verdict();
  verdict.head_seq = database->HeadSeq();
  ASSERT_OK(CheckEarlierInLog(*database, keys_, newer, verdict));
  EXPECT_THAT(verdict.problem,
              IsProblem(0, kProblemStale,
                        "the log ends at head seq 30, before seq 32, the head of the earlier "
                        "export (--previous)"));
  verdict = Verdict();
  verdict.head_seq = database->HeadSeq();
  ASSERT_OK(CheckEarlierInLog(*database, keys_, later, verdict));
  EXPECT_THAT(verdict.problem, NoProblem());
}

TEST_F(EarlierExportTest, EarlierTrailerMustBeSignedByTheGivenKeys) {
  const std::vector<store::RecordedEvent> all = Events();
  const std::vector<store::RecordedEvent> prefix(all.begin(), all.begin() + 25);
  const v1::ExportTrailer forged = MakeTrailer({}, prefix, 25, std::nullopt, *other_key_);

  EXPECT_THAT(VerifyAfter(ExportOf({}), forged).problem,
              IsProblem(0, kProblemBadSignature,
                        ::testing::StartsWith("the earlier export (--previous): the export "
                                              "trailer is signed by key")));
  v1::ExportTrailer unknown = EarlierTrailer(25);
  unknown.set_version(3);
  EXPECT_THAT(VerifyAfter(ExportOf({}), unknown).problem,
              IsProblem(0, kProblemUnsupportedTrailer,
                        ::testing::StartsWith("the earlier export (--previous): export trailer "
                                              "version 3 is not known here")));
}

}  // namespace earlier_export_test
}  // namespace credledger::audit
