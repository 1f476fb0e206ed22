// ExportVerifier on genuine exports of a real log and on exports an attacker edited
// (docs/audit.md, "Verifying an export, step by step": each tampering is detected with its kind
// and first bad seq), in both verifiable formats; and the verdict text of `credledger verify`.
#include "audit/export_verifier.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/audit/verifier_test_log.h"

namespace credledger::audit {
namespace export_verifier_test {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using verifier_testing::IsProblem;
using verifier_testing::NoProblem;
using verifier_testing::ParseJson;
using verifier_testing::PayloadOf;
using verifier_testing::Rehash;
using verifier_testing::WithPayload;

// The serialized TargetRevoked that seq 12 (target/demo/edge-1, version 2) would hold had it
// been written with another reason: a valid payload that differs from the stored one.
std::string OtherPayloadOfSeq12() {
  return store::SerializeDeterministic(
      verifier_testing::TestEvent(verifier_testing::kEdge1, 2, 999).target_revoked());
}

class ExportVerifierTest : public verifier_testing::VerifierLogTest,
                           public ::testing::WithParamInterface<ExportFormat> {
 protected:
  ExportFormat format() const { return GetParam(); }

  // Today's export of the whole log: line i holds seq i + 1, line 30 the trailer.
  std::vector<std::string> FullExport() {
    const std::vector<store::RecordedEvent> events = Events();
    return Render(format(), events, FullTrailer(events));
  }

  // An export under `filter` of `events`, signed with key().
  std::vector<std::string> FilteredExport(const v1::ExportFilter& filter,
                                          const std::vector<store::RecordedEvent>& events) {
    return Render(format(), events,
                  MakeTrailer(filter, events, kEvents, SignedCheckpointFromStore(), *key_));
  }

  static void Erase(std::vector<std::string>& lines, size_t index) {
    lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(index));
  }
};

TEST_P(ExportVerifierTest, GenuineExportVerifies) {
  const Verdict verdict = Verify(FullExport());

  EXPECT_THAT(verdict.problem, NoProblem());
  EXPECT_EQ(verdict.events, kEvents);
  EXPECT_EQ(verdict.first_seq, 1);
  EXPECT_EQ(verdict.last_seq, kEvents);
  EXPECT_EQ(verdict.head_seq, kEvents);
  EXPECT_EQ(verdict.checkpoints_checked, 1);
  ASSERT_TRUE(verdict.checkpoint.has_value());
  EXPECT_EQ(verdict.checkpoint->seq(), 20);
  EXPECT_EQ(FormatVerdict(verdict),
            "OK: 30 events, seq 1..30, head 30, 1 checkpoint verified (newest at seq 20, key " +
                key_->key_id() + ")\n");
  EXPECT_THAT(Verify(FullExport(), /*min_seq=*/kEvents).problem, NoProblem());
}

TEST_P(ExportVerifierTest, CrlfLineEndsAndEmptyLinesAreAccepted) {
  std::vector<std::string> lines = FullExport();
  for (std::string& line : lines) line += "\r";
  lines.insert(lines.begin() + 5, "");

  EXPECT_THAT(Verify(lines).problem, NoProblem());
}

TEST_P(ExportVerifierTest, LinesReserializedWithOtherKeyOrderStillVerify) {
  // As a log pipeline may store them: the same JSON values, keys sorted.
  std::vector<std::string> lines = FullExport();
  for (std::string& line : lines) {
    const std::string sorted = ParseJson(line).dump();
    ASSERT_NE(sorted, line);
    line = sorted;
  }

  EXPECT_THAT(Verify(lines).problem, NoProblem());
}

TEST_P(ExportVerifierTest, FlippedPayloadByteIsADigestMismatchAtItsSeq) {
  std::vector<std::string> lines = FullExport();
  std::string payload = PayloadOf(format(), lines[11]);
  payload[3] ^= 0x20;
  lines[11] = WithPayload(format(), lines[11], payload);

  const Verdict verdict = Verify(lines);
  EXPECT_THAT(verdict.problem, IsProblem(12, kProblemDigestMismatch,
                                         StartsWith("the stored bytes of seq 12 hash to ")));
  EXPECT_EQ(verdict.events, 11);
  EXPECT_EQ(verdict.last_seq, 11);
  EXPECT_THAT(FormatVerdict(verdict),
              StartsWith("FAILED at seq 12: digest mismatch: the stored bytes of seq 12"));
  // Found before the trailer: the head is not known, and not printed as 0.
  EXPECT_THAT(FormatVerdict(verdict), HasSubstr("\nread: 11 events, seq 1..11, 0 checkpoints"));
}

TEST_P(ExportVerifierTest, DeletedRowIsAGapAtItsSeq) {
  std::vector<std::string> lines = FullExport();
  Erase(lines, 11);

  const Verdict verdict = Verify(lines);
  EXPECT_THAT(verdict.problem, IsProblem(12, kProblemGap, "seq 12 is missing"));
  EXPECT_EQ(FormatVerdict(verdict),
            "FAILED at seq 12: gap: seq 12 is missing\n"
            "read: 29 events, seq 1..30, head 30, 0 checkpoints verified\n");
}

TEST_P(ExportVerifierTest, SwappedRowsAreAReordering) {
  std::vector<std::string> lines = FullExport();
  std::swap(lines[11], lines[12]);

  EXPECT_THAT(Verify(lines).problem, IsProblem(12, kProblemReordering, "seq 12 follows seq 13"));
}

TEST_P(ExportVerifierTest, TruncatedTailWithoutTrailer) {
  std::vector<std::string> lines = FullExport();
  lines.resize(25);

  EXPECT_THAT(Verify(lines).problem,
              IsProblem(0, kProblemTruncated,
                        "the export has no trailer; its last event is seq 25"));
}

TEST_P(ExportVerifierTest, TruncatedTailKeepingTheTrailer) {
  std::vector<std::string> lines = FullExport();
  lines.erase(lines.begin() + 25, lines.begin() + 30);

  EXPECT_THAT(Verify(lines).problem,
              IsProblem(26, kProblemTruncated,
                        "the trailer states last seq 30 and 30 events, the export ends at seq "
                        "25 after 25 events"));
}

TEST_P(ExportVerifierTest, CheckpointAndTrailerForgedWithAnotherKey) {
  const std::vector<store::RecordedEvent> events = Events();
  const v1::ExportTrailer forged =
      MakeTrailer({}, events, kEvents, SignedCheckpoint(kEvents, *other_key_), *other_key_);

  EXPECT_THAT(Verify(Render(format(), events, forged)).problem,
              IsProblem(0, kProblemBadSignature, HasSubstr(other_key_->key_id())));
}

TEST_P(ExportVerifierTest, CheckpointForgedWithAnotherKeyInAGenuineTrailer) {
  const std::vector<store::RecordedEvent> events = Events();
  const v1::ExportTrailer trailer =
      MakeTrailer({}, events, kEvents, SignedCheckpoint(kEvents, *other_key_), *key_);

  EXPECT_THAT(Verify(Render(format(), events, trailer)).problem,
              IsProblem(0, kProblemBadSignature, HasSubstr("checkpoint at seq 30")));
}

TEST_P(ExportVerifierTest, GenuineExportWithTheWrongPublicKeyIsABadSignature) {
  EXPECT_THAT(Verify(FullExport(), 0, &other_key_->public_key()).problem,
              IsProblem(0, kProblemBadSignature, HasSubstr(key_->key_id())));
}

TEST_P(ExportVerifierTest, OldPrefixWithItsOldCheckpointIsStaleOnlyAgainstALaterHead) {
  // The export the service wrote when the head was seq 15 and the newest checkpoint seq 10.
  const std::vector<store::RecordedEvent> all = Events();
  const std::vector<store::RecordedEvent> prefix(all.begin(), all.begin() + 15);
  auto checkpoints = store_->ReadCheckpoints(0, 1);
  ASSERT_OK(checkpoints);
  ASSERT_EQ(checkpoints->size(), 1u);
  ASSERT_EQ(checkpoints->front().seq(), 10);
  const std::vector<std::string> lines =
      Render(format(), prefix, MakeTrailer({}, prefix, 15, checkpoints->front(), *key_));

  const Verdict verdict = Verify(lines);
  EXPECT_THAT(verdict.problem, NoProblem());
  ASSERT_TRUE(verdict.checkpoint.has_value());
  EXPECT_EQ(verdict.checkpoint->seq(), 10);
  EXPECT_THAT(Verify(lines, /*min_seq=*/15).problem, NoProblem());
  const Verdict stale = Verify(lines, /*min_seq=*/kEvents);
  EXPECT_THAT(stale.problem,
              IsProblem(0, kProblemStale, "the export ends at head seq 15, before --min-seq 30"));
  EXPECT_THAT(FormatVerdict(stale), StartsWith("FAILED: stale: the export ends"));
}

TEST_P(ExportVerifierTest, EditedDataKeepingTheBytesIsADataMismatch) {
  std::vector<std::string> lines = FullExport();
  nlohmann::json json = ParseJson(lines[11]);
  ASSERT_TRUE(json["data"].contains("reason"));
  json["data"]["reason"] = "routine maintenance";
  lines[11] = json.dump();

  EXPECT_THAT(Verify(lines).problem,
              IsProblem(12, kProblemDataMismatch, HasSubstr("the `data` of seq 12 differs")));
}

TEST_P(ExportVerifierTest, EditedActorKeepingTheBytesIsADataMismatch) {
  std::vector<std::string> lines = FullExport();
  nlohmann::json json = ParseJson(lines[11]);
  ASSERT_EQ(json["actor"], "alice");
  json["actor"] = "mallory";
  lines[11] = json.dump();

  EXPECT_THAT(Verify(lines).problem,
              IsProblem(12, kProblemDataMismatch, HasSubstr("\"mallory\"")));
}

TEST_P(ExportVerifierTest, EditedBytesKeepingTheDataIsADigestMismatch) {
  std::vector<std::string> lines = FullExport();
  lines[11] = WithPayload(format(), lines[11], OtherPayloadOfSeq12());

  EXPECT_THAT(Verify(lines).problem, IsProblem(12, kProblemDigestMismatch, HasSubstr("seq 12")));
}

TEST_P(ExportVerifierTest, ConsistentlyRehashedEditIsCaughtByTheSignedCheckpoint) {
  std::vector<store::RecordedEvent> events = Events();
  const v1::ExportTrailer genuine = FullTrailer(events);
  events[11].payload = OtherPayloadOfSeq12();
  Rehash(events);

  EXPECT_THAT(Verify(Render(format(), events, genuine)).problem,
              IsProblem(20, kProblemCheckpointMismatch,
                        "the checkpoint states chain hash " +
                            verifier_testing::Prefix(genuine.checkpoint().chain_hash()) +
                            " at seq 20, the exported event at seq 20 has " +
                            verifier_testing::Prefix(events[19].chain_hash)));
}

TEST_P(ExportVerifierTest, ConsistentlyRehashedEditAfterTheCheckpointIsCaughtByTheTrailer) {
  std::vector<store::RecordedEvent> events = Events();
  const v1::ExportTrailer genuine = FullTrailer(events);
  ASSERT_EQ(events[24].stream, verifier_testing::kServiceStream);
  events[24].payload = store::SerializeDeterministic(
      verifier_testing::TestEvent(verifier_testing::kServiceStream, 0, 999).service_configured());
  Rehash(events);

  EXPECT_THAT(Verify(Render(format(), events, genuine)).problem,
              IsProblem(30, kProblemTrailerMismatch,
                        "the trailer states chain hash " +
                            verifier_testing::Prefix(genuine.head_chain_hash()) +
                            " at head seq 30, the exported event at seq 30 has " +
                            verifier_testing::Prefix(events[29].chain_hash)));
}

TEST_P(ExportVerifierTest, RehashedEditWithATrailerReSignedByTheAttackerIsABadSignature) {
  std::vector<store::RecordedEvent> events = Events();
  events[11].payload = OtherPayloadOfSeq12();
  Rehash(events);
  v1::ExportTrailer forged = MakeTrailer({}, events, kEvents, std::nullopt, *other_key_);
  forged.set_head_chain_hash(events.back().chain_hash);
  ASSERT_OK(SignTrailer(*other_key_, forged));

  EXPECT_THAT(Verify(Render(format(), events, forged)).problem,
              IsProblem(0, kProblemBadSignature, HasSubstr(other_key_->key_id())));
}

TEST_P(ExportVerifierTest, SingleStreamExportMustHoldItsStreamFromVersionZero) {
  store::EventFilter filter;
  filter.stream = verifier_testing::kEdge1;
  v1::ExportFilter exported;
  exported.set_stream(verifier_testing::kEdge1);
  const std::vector<store::RecordedEvent> events = Events(filter);
  ASSERT_EQ(events.size(), 6u);
  const std::vector<std::string> lines = FilteredExport(exported, events);

  const Verdict verdict = Verify(lines);
  EXPECT_THAT(verdict.problem, NoProblem());
  EXPECT_EQ(verdict.events, 6);
  // The checkpoint's seq (20) is not in this stream: its chain hash cannot be compared.
  EXPECT_EQ(verdict.checkpoints_checked, 0);

  std::vector<std::string> without_first = lines;
  Erase(without_first, 0);
  EXPECT_THAT(Verify(without_first).problem,
              IsProblem(events[1].seq, kProblemGap,
                        absl::StrCat("stream target/demo/edge-1 begins at version 1 (seq ",
                                     events[1].seq, "): version 0 is missing")));
  std::vector<std::string> without_middle = lines;
  Erase(without_middle, 2);
  EXPECT_THAT(Verify(without_middle).problem,
              IsProblem(events[3].seq, kProblemGap,
                        HasSubstr("stream target/demo/edge-1: version 2 is missing")));
}

TEST_P(ExportVerifierTest, StreamPrefixExportVerifies) {
  store::EventFilter filter;
  filter.stream_prefix = "target/demo/";
  v1::ExportFilter exported;
  exported.set_stream_prefix("target/demo/");
  const std::vector<store::RecordedEvent> events = Events(filter);
  ASSERT_EQ(events.size(), 12u);

  EXPECT_THAT(Verify(FilteredExport(exported, events)).problem, NoProblem());
}

TEST_P(ExportVerifierTest, TypeFilteredExportSkipsSeqsButItsCountIsSigned) {
  store::EventFilter filter;
  filter.types = {verifier_testing::kRotationRequested};
  v1::ExportFilter exported;
  exported.add_types(verifier_testing::kRotationRequested);
  const std::vector<store::RecordedEvent> events = Events(filter);
  ASSERT_EQ(events.size(), 9u);
  const std::vector<std::string> lines = FilteredExport(exported, events);
  ASSERT_THAT(Verify(lines).problem, NoProblem());

  std::vector<std::string> without_middle = lines;
  Erase(without_middle, 4);
  EXPECT_THAT(Verify(without_middle).problem,
              IsProblem(0, kProblemTrailerMismatch,
                        "the trailer states 9 events, the export holds 8"));
  std::vector<std::string> without_last = lines;
  Erase(without_last, 8);
  EXPECT_THAT(Verify(without_last).problem,
              IsProblem(0, kProblemTruncated, HasSubstr("the trailer states last seq 29")));
}

TEST_P(ExportVerifierTest, ExportSelectingNothingVerifies) {
  v1::ExportFilter exported;
  exported.add_types("credledger.v1.TargetFinalized");

  const Verdict verdict = Verify(FilteredExport(exported, {}));
  EXPECT_THAT(verdict.problem, NoProblem());
  EXPECT_EQ(FormatVerdict(verdict), "OK: 0 events, head 30, 0 checkpoints verified\n");
}

TEST_P(ExportVerifierTest, SeqBoundedExportMustHoldEverySeqOfItsRange) {
  v1::ExportFilter exported;
  exported.set_after_seq(10);
  exported.set_until_seq(20);
  const std::vector<store::RecordedEvent> all = Events();
  const std::vector<store::RecordedEvent> events(all.begin() + 10, all.begin() + 20);
  const std::vector<std::string> lines = FilteredExport(exported, events);
  const Verdict verdict = Verify(lines);
  ASSERT_THAT(verdict.problem, NoProblem());
  EXPECT_EQ(verdict.checkpoints_checked, 1);

  std::vector<std::string> without_first = lines;
  Erase(without_first, 0);
  EXPECT_THAT(Verify(without_first).problem,
              IsProblem(11, kProblemGap, "seq 11 is missing (the export begins at seq 12)"));
  std::vector<std::string> without_last = lines;
  Erase(without_last, 9);
  EXPECT_THAT(Verify(without_last).problem,
              IsProblem(20, kProblemTruncated,
                        "the trailer states last seq 20 and 10 events, the export ends at seq "
                        "19 after 9 events"));
}

TEST_P(ExportVerifierTest, GenuinelySignedTrailerMissingSeqsOfItsRangeIsAGap) {
  // A faulty exporter that stopped early yet signed what it wrote.
  const std::vector<store::RecordedEvent> all = Events();
  const std::vector<store::RecordedEvent> events(all.begin(), all.begin() + 25);

  EXPECT_THAT(Verify(FilteredExport({}, events)).problem,
              IsProblem(26, kProblemGap, HasSubstr("seqs 26..30 are missing")));
}

TEST_P(ExportVerifierTest, TimeBoundedExportIsCheckedAgainstTheTrailer) {
  const std::vector<store::RecordedEvent> all = Events();
  v1::ExportFilter exported;
  exported.set_from_time_us(all[10].recorded_at_us);
  const std::vector<store::RecordedEvent> events(all.begin() + 10, all.end());
  const std::vector<std::string> lines = FilteredExport(exported, events);
  ASSERT_THAT(Verify(lines).problem, NoProblem());

  std::vector<std::string> without_first = lines;
  Erase(without_first, 0);
  EXPECT_THAT(Verify(without_first).problem,
              IsProblem(0, kProblemTrailerMismatch,
                        "the trailer states seqs 11..30, the export holds seqs 12..30"));
}

TEST_P(ExportVerifierTest, EventAfterTheTrailersHeadIsATrailerMismatch) {
  const std::vector<store::RecordedEvent> events = Events();
  const std::vector<std::string> lines =
      Render(format(), events, MakeTrailer({}, events, 25, SignedCheckpointFromStore(), *key_));

  EXPECT_THAT(Verify(lines).problem,
              IsProblem(30, kProblemTrailerMismatch, "seq 30 is after the trailer's head seq 25"));
}

TEST_P(ExportVerifierTest, WrongStreamHeadInAGenuinelySignedTrailerIsATrailerMismatch) {
  const std::vector<store::RecordedEvent> events = Events();
  v1::ExportTrailer trailer = FullTrailer(events);
  ASSERT_EQ(trailer.streams(0).stream(), verifier_testing::kServiceStream);
  trailer.mutable_streams(0)->set_stream_version(trailer.streams(0).stream_version() + 1);
  ASSERT_OK(SignTrailer(*key_, trailer));

  EXPECT_THAT(Verify(Render(format(), events, trailer)).problem,
              IsProblem(0, kProblemTrailerMismatch,
                        HasSubstr("the trailer states stream service ends at version 12")));
}

TEST_P(ExportVerifierTest, LineAfterTheTrailerIsRefused) {
  std::vector<std::string> lines = FullExport();
  lines.push_back(lines[11]);

  EXPECT_THAT(Verify(lines).problem,
              IsProblem(12, kProblemTrailerMismatch,
                        "line 32 follows the trailer on line 31; the trailer must be the last "
                        "line"));
}

TEST_P(ExportVerifierTest, UnparsableLineIsMalformed) {
  std::vector<std::string> lines = FullExport();
  lines[11] = "{\"seq\": ";

  EXPECT_THAT(Verify(lines).problem, IsProblem(0, kProblemMalformed, StartsWith("line 12: ")));
}

INSTANTIATE_TEST_SUITE_P(Formats, ExportVerifierTest,
                         ::testing::Values(ExportFormat::kJsonLines, ExportFormat::kCloudEvents),
                         [](const ::testing::TestParamInfo<ExportFormat>& info) {
                           return std::string(info.param == ExportFormat::kJsonLines
                                                  ? "JsonLines"
                                                  : "CloudEvents");
                         });

class ExportVerifierInputTest : public verifier_testing::VerifierLogTest {};

TEST_F(ExportVerifierInputTest, EmptyInputIsATruncatedTail) {
  EXPECT_THAT(Verify({}).problem,
              IsProblem(0, kProblemTruncated, "the export has no events and no trailer"));
}

TEST_F(ExportVerifierInputTest, CsvExportIsNotVerifiable) {
  const std::vector<std::string> lines = {RenderHeader(ExportFormat::kCsv)};

  EXPECT_THAT(Verify(lines).problem, IsProblem(0, kProblemMalformed, StartsWith("line 1: ")));
}

TEST(FormatVerdictTest, ProblemWithoutSeqOmitsIt) {
  Verdict verdict;
  verdict.events = 2;
  verdict.first_seq = 4;
  verdict.last_seq = 5;
  verdict.head_seq = 9;
  verdict.problem = Problem{0, kProblemBadSignature, "the export trailer: bad signature"};

  EXPECT_EQ(FormatVerdict(verdict),
            "FAILED: bad signature: the export trailer: bad signature\n"
            "read: 2 events, seq 4..5, head 9, 0 checkpoints verified\n");
}

}  // namespace export_verifier_test
}  // namespace credledger::audit
