// Tests of ReadReportSummary (projections/report_summary.h): on stored ReportAccepted bytes it
// gives what a full decode gives for the fields it reads, including where Protobuf's parser
// merges repeated occurrences or treats a field of the wrong wire type as unknown, and it
// refuses exactly the truncated payloads the parser refuses.
#include "projections/report_summary.h"

#include <string>

#include "gtest/gtest.h"
#include "projections/proto_time.h"
#include "test/support/report_summary_text.h"

namespace credledger::projections {
namespace report_summary_test {

using ::credledger::testing::SummaryOf;
using ::credledger::testing::SummaryText;

v1::ReportAccepted FullReport() {
  v1::ReportAccepted e;
  e.set_target_uid("0b7c2a52-5c1d-4d4e-9a49-3f0f1c2b7d11");
  *e.mutable_received_at() = ToProto(absl::FromUnixMicros(1'795'000'000'123'456));
  v1::TargetReportSpec& r = *e.mutable_report();
  *r.mutable_last_report_time() = ToProto(absl::FromUnixSeconds(1'795'000'000));
  const v1::ReleasePhase phases[] = {v1::RELEASE_PHASE_READY, v1::RELEASE_PHASE_DEGRADED,
                                     static_cast<v1::ReleasePhase>(77)};  // unknown stays
  int n = 0;
  for (v1::ReleasePhase phase : phases) {
    v1::ReleaseStatus& release = *r.add_releases();
    release.set_name(absl::StrCat("app-", n));
    release.set_namespace_(n % 2 == 0 ? "flux-system" : "apps");
    release.set_phase(phase);
    release.set_revision("1.2.3");
    for (int i = 0; i < 3; ++i) {
      v1::ReportCondition& c = *release.add_helm_conditions();
      c.set_type(i == 0 ? "Ready" : "Released");
      c.set_status("True");
      c.set_reason("InstallSucceeded");
      c.set_message(std::string(200, 'm'));
    }
    ++n;
  }
  const char* statuses[] = {"True", "False", "Unknown", "True"};
  for (const char* status : statuses) {
    v1::PreflightCheck& check = *r.add_preflight_checks();
    check.set_type(absl::StrCat("Check", r.preflight_checks_size()));
    check.set_status(status);
    check.set_reason("Checked");
    check.set_message("details");
  }
  r.mutable_capacity();
  return e;
}

// The summary read from `bytes`, or "refused".
std::string Read(const std::string& bytes) {
  ReportSummary summary;
  return ReadReportSummary(bytes, summary) ? SummaryText(summary) : "refused";
}

// What a full decode of `bytes` gives, or "refused".
std::string Decode(const std::string& bytes) {
  v1::ReportAccepted e;
  return e.ParseFromString(bytes) ? SummaryText(SummaryOf(e)) : "refused";
}

TEST(ReportSummaryTest, ReadsWhatTheFullDecodeHolds) {
  const std::string bytes = FullReport().SerializeAsString();
  const std::string read = Read(bytes);
  EXPECT_EQ(read, Decode(bytes));
  EXPECT_NE(read, "refused");
  EXPECT_NE(read.find("checks=4 failed=1 errored=1"), std::string::npos) << read;
  EXPECT_NE(read.find(absl::StrCat("apps/app-1:", static_cast<int>(v1::RELEASE_PHASE_DEGRADED),
                                   ";flux-system/app-2:77;")),
            std::string::npos)
      << read;
}

TEST(ReportSummaryTest, ChecksAllPassedNoneAndOnlyErrored) {
  v1::ReportAccepted e = FullReport();
  for (const char* status : {"True", "Unknown", ""}) {
    for (v1::PreflightCheck& check : *e.mutable_report()->mutable_preflight_checks()) {
      check.set_status(status);
    }
    EXPECT_EQ(Read(e.SerializeAsString()), Decode(e.SerializeAsString())) << status;
  }
  e.mutable_report()->clear_preflight_checks();
  e.mutable_report()->clear_releases();
  e.mutable_report()->clear_last_report_time();
  EXPECT_EQ(Read(e.SerializeAsString()), Decode(e.SerializeAsString()));
  EXPECT_EQ(Read(""), Decode(""));
}

TEST(ReportSummaryTest, RepeatedOccurrencesMergeAsTheParserMergesThem) {
  // Two messages one after the other parse as their merge: the later scalars win, repeated
  // fields append, sub-messages merge field by field.
  v1::ReportAccepted second;
  second.set_target_uid("second-uid");
  second.mutable_received_at()->set_nanos(5000);
  v1::ReleaseStatus& release = *second.mutable_report()->add_releases();
  release.set_name("late");
  release.set_phase(v1::RELEASE_PHASE_FAILED);
  second.mutable_report()->add_preflight_checks()->set_status("False");
  const std::string bytes = FullReport().SerializeAsString() + second.SerializeAsString();
  const std::string read = Read(bytes);
  EXPECT_EQ(read, Decode(bytes));
  EXPECT_NE(read.find("uid=second-uid received=1795000000.5000"), std::string::npos) << read;
}

TEST(ReportSummaryTest, AKnownFieldOfTheWrongWireTypeIsSkippedAsTheParserDoes) {
  // Field 1 (target_uid, a string) as a varint, and field 3 of a release (phase, a varint)
  // as bytes: the parser keeps both as unknown fields.
  std::string bytes = FullReport().SerializeAsString();
  bytes += std::string("\x08\x2a", 2);
  std::string release_bytes = std::string("\x1a\x01x", 3);  // field 3, length 1
  std::string report_bytes =
      std::string("\x12") + static_cast<char>(release_bytes.size()) + release_bytes;
  bytes += std::string("\x12") + static_cast<char>(report_bytes.size()) + report_bytes;
  const std::string read = Read(bytes);
  EXPECT_EQ(read, Decode(bytes));
  EXPECT_NE(read.find("/:0;]"), std::string::npos) << read;  // the extra release, no phase
}

TEST(ReportSummaryTest, TimesWithUnknownFieldsAreNotPlain) {
  ReportSummary summary;
  ASSERT_TRUE(ReadReportSummary(FullReport().SerializeAsString(), summary));
  EXPECT_TRUE(summary.plain_times);
  for (bool received : {true, false}) {
    v1::ReportAccepted e = FullReport();
    google::protobuf::Timestamp& t =
        received ? *e.mutable_received_at() : *e.mutable_report()->mutable_last_report_time();
    t.GetReflection()->MutableUnknownFields(&t)->AddVarint(9, 1);
    ASSERT_TRUE(ReadReportSummary(e.SerializeAsString(), summary));
    EXPECT_FALSE(summary.plain_times) << (received ? "received_at" : "last_report_time");
    EXPECT_EQ(SummaryText(summary), Decode(e.SerializeAsString()));
  }
}

TEST(ReportSummaryTest, RefusesExactlyTheTruncationsTheParserRefuses) {
  const std::string bytes = FullReport().SerializeAsString();
  int refused = 0;
  for (size_t length = 0; length < bytes.size(); ++length) {
    const std::string prefix = bytes.substr(0, length);
    const std::string read = Read(prefix);
    ASSERT_EQ(read, Decode(prefix)) << "prefix of " << length << " bytes";
    if (read == "refused") ++refused;
  }
  EXPECT_GT(refused, static_cast<int>(bytes.size()) / 2);
}

TEST(ReportSummaryTest, RefusesMalformedWireData) {
  EXPECT_EQ(Read(std::string("\x12\x05\x0a", 3)), "refused");  // length beyond the end
  EXPECT_EQ(Read(std::string("\x00", 1)), "refused");          // field number 0
  EXPECT_EQ(Read(std::string("\x0c", 1)), "refused");          // an end-group with no start
  EXPECT_EQ(Read(std::string("\x12\x01\xff", 3)), "refused");  // a tag cut off in the report
}

}  // namespace report_summary_test
}  // namespace credledger::projections
