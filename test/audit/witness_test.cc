// Witness specs, the witness text and FileWitness on real files (docs/audit.md, "Witnesses").
#include "audit/witness.h"

#include <string>
#include <vector>

#include "audit/file_witness.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/file_text.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::audit {
namespace {

using ::credledger::testing::ReadText;
using ::credledger::testing::StatusIs;
using ::credledger::testing::WriteText;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

v1::Checkpoint Checkpoint(int64_t seq) {
  v1::Checkpoint c;
  c.set_seq(seq);
  c.set_chain_hash(std::string(32, static_cast<char>(seq)));
  c.set_signed_at_us(1'700'000'000'000'000 + seq);
  c.set_key_id("5d0c8e1f2a3b4c6d");
  c.set_signature(std::string(64, '\x7f'));
  return c;
}

std::vector<int64_t> Seqs(const std::vector<v1::Checkpoint>& checkpoints) {
  std::vector<int64_t> seqs;
  for (const v1::Checkpoint& c : checkpoints) seqs.push_back(c.seq());
  return seqs;
}

TEST(WitnessSpecTest, NamesAFileOrAConfigMap) {
  auto file = ParseWitnessSpec("--witness", "file:var/witness.jsonl");
  ASSERT_OK(file);
  EXPECT_EQ(file->kind, WitnessSpec::Kind::kFile);
  EXPECT_EQ(file->path, "var/witness.jsonl");
  EXPECT_EQ(file->text, "file:var/witness.jsonl");
  auto configmap = ParseWitnessSpec("--witness", "kubernetes:credledger/credledger-witness");
  ASSERT_OK(configmap);
  EXPECT_EQ(configmap->kind, WitnessSpec::Kind::kKubernetes);
  EXPECT_EQ(configmap->configmap_namespace, "credledger");
  EXPECT_EQ(configmap->configmap_name, "credledger-witness");
}

TEST(WitnessSpecTest, RefusesWhatNamesNoWitnessNamingTheFlagAndTheForms) {
  for (const char* bad :
       {"var/witness.jsonl", "file:", "kubernetes:credledger", "kubernetes:Credledger/w",
        "kubernetes:a/b/c", "kubernetes:ns/W_1", "configmap:ns/w"}) {
    EXPECT_THAT(ParseWitnessSpec("--witness", bad),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("expected file:<path> or kubernetes:<namespace>/<configmap>")))
        << bad;
  }
  EXPECT_THAT(ParseWitnessSpec("--witness", "file:"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--witness: \"file:\": the path is empty")));
}

TEST(WitnessLinesTest, RoundTripsOneJsonObjectPerLine) {
  const std::string text = RenderWitnessLines({Checkpoint(10), Checkpoint(20)});
  EXPECT_THAT(text, HasSubstr("{\"seq\":\"10\",\"chain_hash\":\"0a0a"));
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
  auto parsed = ParseWitnessLines("file:w", text);
  ASSERT_OK(parsed);
  ASSERT_EQ(parsed->size(), 2u);
  EXPECT_EQ((*parsed)[1].SerializeAsString(), Checkpoint(20).SerializeAsString());
}

TEST(WitnessLinesTest, SkipsALineACrashCutShort) {
  const std::string whole = RenderWitnessLines({Checkpoint(10), Checkpoint(20)});
  const std::string cut = whole.substr(0, whole.size() - 9);
  auto parsed = ParseWitnessLines("file:w", cut + "\n" + RenderWitnessLines({Checkpoint(30)}));
  ASSERT_OK(parsed);
  EXPECT_THAT(Seqs(*parsed), ElementsAre(10, 30));
}

TEST(WitnessLinesTest, RefusesDamageNamingTheLine) {
  EXPECT_THAT(
      ParseWitnessLines("file:w", RenderWitnessLines({Checkpoint(20), Checkpoint(10)})),
      StatusIs(absl::StatusCode::kDataLoss, "file:w: line 2: seq 10 does not follow seq 20"));
  EXPECT_THAT(ParseWitnessLines("file:w", "{\"seq\":\"x\"}\n"),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("file:w: line 1: field \"seq\"")));
}

class FileWitnessTest : public ::testing::Test {
 protected:
  std::filesystem::path path() const { return dir_.path() / "witness.jsonl"; }
  credledger::testing::TempDir dir_;
};

TEST_F(FileWitnessTest, AMissingFileHoldsNothingUntilTheFirstAppend) {
  FileWitness witness(path(), "file:witness.jsonl");
  auto empty = witness.Read();
  ASSERT_OK(empty);
  EXPECT_TRUE(empty->empty());
  EXPECT_THAT(witness.ReadAll(), StatusIs(absl::StatusCode::kNotFound));
  ASSERT_OK(witness.Append(Checkpoint(5)));
  EXPECT_EQ(ReadText(path()), RenderWitnessLines({Checkpoint(5)}));
  EXPECT_EQ(witness.name(), "file:witness.jsonl");
}

TEST_F(FileWitnessTest, AppendsAndReadsTheNewestFromTheTail) {
  FileWitness witness(path(), "file:witness.jsonl");
  // Enough lines that the newest are past the part Read looks at from the start.
  for (int64_t seq = 1; seq <= 400; ++seq) ASSERT_OK(witness.Append(Checkpoint(seq)));
  auto newest = witness.Read();
  ASSERT_OK(newest);
  ASSERT_EQ(newest->size(), kWitnessHistory);
  EXPECT_EQ(newest->front().seq(), 400 - static_cast<int64_t>(kWitnessHistory) + 1);
  EXPECT_EQ(newest->back().seq(), 400);
  auto all = witness.ReadAll();
  ASSERT_OK(all);
  EXPECT_EQ(all->size(), 400u);
}

TEST_F(FileWitnessTest, AnAppendAfterACutLineStartsANewLine) {
  const std::string line = RenderWitnessLines({Checkpoint(7)});
  WriteText(path(), line + line.substr(0, 20));
  FileWitness witness(path(), "file:witness.jsonl");
  ASSERT_OK(witness.Append(Checkpoint(8)));
  auto all = witness.ReadAll();
  ASSERT_OK(all);
  EXPECT_THAT(Seqs(*all), ElementsAre(7, 8));
}

}  // namespace
}  // namespace credledger::audit
