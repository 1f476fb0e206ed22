// `credledger verify` (docs/audit.md, "Verifying an export, step by step" and "Keeping exports
// consistent") through the command dispatcher, offline as an auditor runs it: exports written
// by the service's own ExportEvents from a real SQLite log, a line edited the way an attacker
// hides it, a copy of the database (--db), an earlier export (--previous), the usage errors of
// the flag combinations, and --help.
#include "cli/verify_cli.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "audit/witness.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/credledger_main.h"
#include "service/offline/audit_api.h"
#include "test/audit/verifier_test_log.h"
#include "test/support/file_text.h"

namespace credledger::cli {
namespace verify_cli_test {

using ::credledger::testing::ReadText;
using ::credledger::testing::WriteText;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class VerifyCliTest : public audit::verifier_testing::VerifierLogTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(VerifierLogTest::SetUp());
    ASSERT_NO_FATAL_FAILURE(AppendCredentials());
    public_key_ = dir_.path() / "signing.pub.pem";
    WriteText(public_key_, key_->public_key().Pem());
  }

  int Run(std::vector<std::string> args) {
    out_.str("");
    err_.str("");
    args.insert(args.begin(), "verify");
    return service::CredledgerDispatcher().Run(args, out_, err_);
  }

  // Writes the JSON Lines export the service streams for `filter` to <dir>/<name>.
  std::string Export(const std::string& name, const v1::ExportFilter& filter = {}) {
    const std::filesystem::path path = dir_.path() / name;
    std::ofstream out(path);
    service::AuditApi api(store_.get(), key_.get(), &clock_);
    v1::ExportEventsRequest request;
    *request.mutable_filter() = filter;
    EXPECT_OK(api.ExportEvents(request, [&](const v1::ExportEventsResponse& response) {
      for (const v1::ExportedEvent& e : response.events()) {
        absl::StatusOr<std::string> line = audit::RenderEvent(
            audit::ExportFormat::kJsonLines, audit::FromExported(e), store::EventCodec::Default());
        EXPECT_OK(line);
        out << (line.ok() ? *line : "") << "\n";
      }
      if (response.has_trailer()) {
        out << audit::RenderTrailer(audit::ExportFormat::kJsonLines, response.trailer()) << "\n";
      }
      return true;
    }));
    return path.string();
  }

  std::filesystem::path public_key_;
  std::ostringstream out_;
  std::ostringstream err_;
};

// Regression: in a type-filtered export no chain links one CredentialIssued line to the next,
// and the trailer named only the last line of each stream, so a line whose token fingerprint
// and Secret name were edited, its digest and chain_hash recomputed, verified OK.
TEST_F(VerifyCliTest, EditedLineOfATypeFilteredExportFailsAndTheDatabaseNamesIt) {
  v1::ExportFilter filter;
  filter.add_types(audit::verifier_testing::kCredentialIssued);
  const std::string file = Export("issued.jsonl", filter);
  ASSERT_EQ(Run({file, "--public-key", public_key_.string()}), kExitOk) << out_.str();

  std::vector<std::string> lines = absl::StrSplit(ReadText(file), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 8u);
  ASSERT_OK_AND_ASSIGN(audit::ExportLine parsed,
                       audit::ParseLine(audit::ExportFormat::kJsonLines, lines[1]));
  store::RecordedEvent forged = std::get<audit::ExportRecord>(parsed).event;
  v1::CredentialIssued issued;
  ASSERT_TRUE(issued.ParseFromString(forged.payload));
  issued.set_token_fingerprint("0123456789abcdef");
  issued.mutable_secret()->set_name("solar-agent-forged");
  forged.payload = store::SerializeDeterministic(issued);
  forged.digest = audit::verifier_testing::SpecDigest(forged);
  forged.chain_hash = audit::verifier_testing::SpecSha256(forged.prev_chain_hash + forged.digest);
  forged.stream_hash = std::string(32, '\x01');
  ASSERT_OK_AND_ASSIGN(lines[1], audit::RenderEvent(audit::ExportFormat::kJsonLines, forged,
                                                    store::EventCodec::Default()));
  WriteText(file, absl::StrJoin(lines, "\n") + "\n");

  EXPECT_EQ(Run({file, "--public-key", public_key_.string()}), kExitFailure);
  EXPECT_THAT(out_.str(),
              StartsWith("FAILED: trailer mismatch: the exported lines do not hash to the "
                         "trailer's signed lines_hash: a line was edited, dropped, added or "
                         "moved; `credledger verify FILE --db DB` with a copy of the database "
                         "names the line\n"));
  const std::filesystem::path copy = CopyLog("copy");
  EXPECT_EQ(Run({file, "--db", copy.string(), "--public-key", public_key_.string()}), kExitFailure);
  EXPECT_THAT(out_.str(), StartsWith(absl::StrCat("FAILED at seq ", forged.seq,
                                                  ": database mismatch: line 2 (seq ", forged.seq,
                                                  "): its payload differs from the database's "
                                                  "event at seq ",
                                                  forged.seq, ": the export has ")));
}

TEST_F(VerifyCliTest, ExportAgainstTheDatabaseAndTheDatabaseAloneVerify) {
  const std::string file = Export("all.jsonl");
  const std::filesystem::path copy = CopyLog("copy");

  EXPECT_EQ(Run({file, "--db", copy.string(), "--public-key", public_key_.string()}), kExitOk)
      << out_.str() << err_.str();
  EXPECT_THAT(out_.str(), StartsWith("OK: 44 events, seq 1..44, head 44, "));
  EXPECT_EQ(Run({"--db", copy.string(), "--public-key", public_key_.string()}), kExitOk);
  EXPECT_THAT(out_.str(), StartsWith("OK: 44 events, seq 1..44, head 44, 2 checkpoints"));
}

TEST_F(VerifyCliTest, EarlierExportOrItsTrailerLineIsConfirmedByTheNextExport) {
  const std::string earlier = Export("earlier.jsonl");
  const std::vector<std::string> earlier_lines =
      absl::StrSplit(ReadText(earlier), '\n', absl::SkipEmpty());
  const std::filesystem::path trailer_only = dir_.path() / "earlier-trailer.json";
  WriteText(trailer_only, earlier_lines.back() + "\n");
  const std::string earlier_head =
      absl::StrCat("earlier head confirmed: seq 44 has chain hash ",
                   audit::verifier_testing::Prefix(EventAt(44).chain_hash), " in ");
  ASSERT_NO_FATAL_FAILURE(AppendEvents(3));
  const std::string later = Export("later.jsonl");
  v1::ExportFilter one_stream;
  one_stream.set_stream(audit::verifier_testing::kEdge2);
  const std::string later_stream = Export("later-edge-2.jsonl", one_stream);

  for (const std::string& previous : {earlier, trailer_only.string()}) {
    EXPECT_EQ(Run({later, "--previous", previous, "--public-key", public_key_.string()}), kExitOk)
        << out_.str() << err_.str();
    EXPECT_THAT(out_.str(), HasSubstr("\n" + earlier_head + "line 44 of this export\n"));
  }
  // The earlier export is behind the later one, not the other way round.
  EXPECT_EQ(Run({earlier, "--previous", later, "--public-key", public_key_.string()}),
            kExitFailure);
  EXPECT_THAT(out_.str(), StartsWith("FAILED: stale: the export ends at head seq 44, before seq "
                                     "47, the head of the earlier export (--previous)\n"));
  // An export of one stream cannot show seq 44; a copy of the database can.
  EXPECT_EQ(Run({later_stream, "--previous", earlier, "--public-key", public_key_.string()}),
            kExitFailure);
  EXPECT_THAT(out_.str(), StartsWith("FAILED: earlier head not shown: this export cannot show "
                                     "the chain hash at seq 44"));
  const std::filesystem::path copy = CopyLog("copy");
  EXPECT_EQ(Run({later_stream, "--previous", earlier, "--db", copy.string(), "--public-key",
                 public_key_.string()}),
            kExitOk)
      << out_.str();
  EXPECT_THAT(out_.str(), HasSubstr("\n" + earlier_head + "the database\n"));
  EXPECT_EQ(Run({"--db", copy.string(), "--previous", trailer_only.string(), "--public-key",
                 public_key_.string()}),
            kExitOk)
      << out_.str();
  EXPECT_THAT(out_.str(), HasSubstr("\n" + earlier_head + "the database\n"));
}

TEST_F(VerifyCliTest, PreviousFileWithoutATrailerIsAnError) {
  const std::string later = Export("later.jsonl");
  const std::filesystem::path not_an_export = dir_.path() / "notes.txt";
  WriteText(not_an_export, "{\"seq\": 1}\n");

  EXPECT_EQ(
      Run({later, "--previous", not_an_export.string(), "--public-key", public_key_.string()}),
      kExitFailure);
  EXPECT_EQ(err_.str(), absl::StrCat("error: INVALID_ARGUMENT: --previous ", not_an_export.string(),
                                     ": field \"stream\": missing (give an earlier export, or a "
                                     "file holding just its trailer line)\n"));
  EXPECT_EQ(Run({later, "--previous", (dir_.path() / "missing").string(), "--public-key",
                 public_key_.string()}),
            kExitFailure);
  EXPECT_THAT(err_.str(), StartsWith("error: NOT_FOUND: --previous "));
}

TEST_F(VerifyCliTest, CombinationsThatCannotRunAreUsageErrorsNamingTheFlags) {
  const std::string file = Export("all.jsonl");
  const std::string key = public_key_.string();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--public-key", key}, "error: give an export FILE, --db DB, or both\n"},
      {{"--previous", file, "--public-key", key},
       "error: --previous: needs an export FILE or --db DB to check it against\n"},
      {{file, "--previous", "-", "--public-key", key},
       "error: --previous: give the earlier export's file; stdin (-) is not read for it\n"},
      {{file}, "error: --public-key: required\n"},
      {{file, "--min-seq", "-1", "--public-key", key}, "error: --min-seq: must be 0 or more\n"},
      {{file, "--witness", "file:w.jsonl", "--public-key", key},
       "error: --witness: needs --db DB or --store\n"},
      {{"--db", "copy.db", "--witness", "w.jsonl", "--public-key", key},
       "error: --witness: \"w.jsonl\": unknown kind of witness; expected file:<path> or "
       "kubernetes:<namespace>/<configmap>\n"},
      {{"--db", "copy.db", "--max-unsigned-events", "-1", "--public-key", key},
       "error: --max-unsigned-events: must be 0 or more\n"},
  };
  for (const auto& [args, message] : cases) {
    EXPECT_EQ(Run(args), kExitUsage) << message;
    EXPECT_EQ(err_.str(), message);
    EXPECT_EQ(out_.str(), "");
  }
}

TEST_F(VerifyCliTest, TheDatabaseMustBeAnchoredByARecentCheckpointAndAgreeWithItsWitness) {
  const int64_t head = store_->HeadSeq();
  const std::string key = public_key_.string();
  const std::filesystem::path witness = dir_.path() / "witness.jsonl";
  WriteText(witness, audit::RenderWitnessLines(
                         {SignedCheckpoint(10, *key_), SignedCheckpoint(head, *key_)}));
  v1::Checkpoint forged = SignedCheckpoint(head, *key_);
  forged.set_chain_hash(std::string(32, 'f'));
  const std::filesystem::path contradicting = dir_.path() / "contradicting.jsonl";
  WriteText(contradicting, audit::RenderWitnessLines({forged}));
  const std::string copy = CopyLog("copy").string();

  EXPECT_EQ(Run({"--db", copy, "--witness", "file:" + witness.string(), "--public-key", key}),
            kExitOk)
      << out_.str();
  EXPECT_THAT(out_.str(), HasSubstr(absl::StrCat("\nwitness confirmed: file:", witness.string(),
                                                 " holds 2 checkpoints, newest at seq ", head,
                                                 ", all in the log\n")));

  EXPECT_EQ(Run({"--db", copy, "--witness", "file:" + contradicting.string(), "--public-key", key}),
            kExitFailure);
  EXPECT_THAT(out_.str(), StartsWith(absl::StrCat("FAILED at seq ", head,
                                                  ": witness mismatch: the checkpoint the "
                                                  "witness file:",
                                                  contradicting.string())));

  // The newest checkpoint is at seq 20: a service checkpointing every 5 events would have
  // signed far closer to the head.
  EXPECT_EQ(Run({"--db", copy, "--max-unsigned-events", "5", "--public-key", key}), kExitFailure);
  EXPECT_THAT(out_.str(),
              StartsWith(absl::StrCat("FAILED: unsigned tail: the newest checkpoint is at seq 20, ",
                                      head - 20, " events behind the head at seq ", head,
                                      "; at most 5 may be\n")));
}

TEST_F(VerifyCliTest, HelpDescribesEveryInputAndTheirCombinations) {
  ASSERT_EQ(Run({"--help"}), kExitOk);
  const std::string help = out_.str() + err_.str();
  for (const char* part :
       {"[FILE]", "\"-\" reads stdin", "lines_hash", "--db DB", "FILE --db DB",
        "naming the first line and field that differ", "run --db DB alone", "--previous EARLIER",
        "just its trailer line", "a fork", "--min-seq", "--public-key"}) {
    EXPECT_THAT(help, HasSubstr(part));
  }
}

}  // namespace verify_cli_test
}  // namespace credledger::cli
