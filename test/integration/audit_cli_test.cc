// The audit and forensics subcommands through the real binaries (docs/api.md, "AuditService";
// docs/audit.md, "Export" and "Verifying an export, step by step"):
// `credledger serve --signing-key` with Targets that got their first credential, then export in
// every format, offline verification of the exports and of a copy of the database, tampering,
// and replay, timeline, diff and valid-credentials, each asked of the server and of the copied
// database.
//
// Expectations come from the log itself, read independently through a read-only SQLite
// connection (LiveProcessTest::ReadLog), and from the cluster's Secrets.
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "audit/export_format.h"
#include "common/rfc3339.h"
#include "common/sha256.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubebridge/client/json_util.h"
#include "store/event_codec.h"
#include "store/log_hash.h"
#include "test/integration/live_processes.h"
#include "test/support/file_text.h"
#include "test/support/status_matchers.h"

namespace credledger::testing {
namespace audit_cli_test {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kCredledger[] = CREDLEDGER_BINARY;
// Variables of the test's environment that would change what the children do.
const std::vector<std::string> kCleanEnv = {"CREDLEDGER_SERVER", "KUBECONFIG",
                                            "CREDLEDGER_FAULT_POINTS"};
constexpr char kTarget[] = "edge-1";
constexpr char kOtherTarget[] = "edge-2";
constexpr char kTargetStream[] = "target/demo/edge-1";
constexpr char kSecret[] = "solar-agent-edge-1-1";

// The JSON objects of a JSON Lines text (empty lines skipped; a line that does not parse
// fails the test).
std::vector<nlohmann::json> JsonLines(const std::string& text) {
  std::vector<nlohmann::json> lines;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    nlohmann::json parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    EXPECT_TRUE(parsed.is_object()) << line;
    lines.push_back(std::move(parsed));
  }
  return lines;
}

// An integer JSON field written as a number or, as the protobuf JSON mapping writes 64-bit
// integers, as a decimal string; -1 when it is neither.
int64_t IntAt(const nlohmann::json& object, const std::string& key) {
  const nlohmann::json value = object.value(key, nlohmann::json());
  if (value.is_number_integer()) return value.get<int64_t>();
  int64_t parsed = -1;
  if (value.is_string() && absl::SimpleAtoi(value.get<std::string>(), &parsed)) return parsed;
  return -1;
}

class AuditCliTest : public LiveProcessTest {
 protected:
  // Runs `credledger <args>` without --server: verify, keygen and the --db modes need none.
  RunResult Offline(std::vector<std::string> args) {
    args.insert(args.begin(), kCredledger);
    absl::StatusOr<RunResult> result = testing::Run(args, kLiveWait, kCleanEnv);
    EXPECT_OK(result);
    return result.ok() ? *result : RunResult{};
  }

  // Writes a key pair named `name` into the test's directory; returns its key id.
  std::string GenerateKey(const std::string& name) {
    const RunResult keygen =
        Offline({"keygen", "--private-key", Path(name + ".pem").string(), "--public-key",
                 Path(name + ".pub.pem").string()});
    EXPECT_EQ(keygen.exit_code, 0) << keygen.err;
    const size_t at = keygen.out.find("key id: ");
    return at == std::string::npos ? "" : keygen.out.substr(at + 8, 16);
  }

  // Registers demo/`target` and waits for its first credential.
  void RegisterAndWaitForCredential(const std::string& target) {
    ASSERT_EQ(Cli({"target", "register", absl::StrCat("demo/", target)}).exit_code, 0);
    ASSERT_FALSE(WaitForCurrentCredential(target, 1).is_null());
  }

  // After serve stopped: copies the database and its -wal file (when there is one) to
  // <dir>/copy/events.db and returns that path.
  std::filesystem::path CopyDatabase() {
    const std::filesystem::path copy_dir = Path("copy");
    std::filesystem::create_directories(copy_dir);
    for (const char* suffix : {"", "-wal"}) {
      const std::filesystem::path from = db_path().string() + suffix;
      if (!std::filesystem::exists(from)) continue;
      std::filesystem::copy_file(from, copy_dir / absl::StrCat("events.db", suffix));
    }
    return copy_dir / "events.db";
  }

  std::filesystem::path Path(const std::string& name) const { return dir_.path() / name; }
};

// The event of `events` with `type` in `stream`; fails the test unless there is exactly one.
store::RecordedEvent OnlyEvent(const std::vector<store::RecordedEvent>& events,
                               const std::string& type, const std::string& stream) {
  std::vector<store::RecordedEvent> found;
  for (const store::RecordedEvent& e : events) {
    if (e.type == type && e.stream == stream) found.push_back(e);
  }
  EXPECT_EQ(found.size(), 1u) << type << " in " << stream;
  return found.empty() ? store::RecordedEvent{} : found.front();
}

TEST_F(AuditCliTest, ExportsInEveryFormatVerifyOfflineAndTamperingIsFound) {
  const std::string key_id = GenerateKey("signing");
  ASSERT_EQ(key_id.size(), 16u);
  const std::string public_key = Path("signing.pub.pem").string();
  ASSERT_NO_FATAL_FAILURE(StartServe("", {"--signing-key", Path("signing.pem").string()}));
  ASSERT_NO_FATAL_FAILURE(RegisterAndWaitForCredential(kTarget));
  ASSERT_NO_FATAL_FAILURE(RegisterAndWaitForCredential(kOtherTarget));

  // JSON Lines of the whole log: seqs 1..head, then the signed trailer.
  const std::filesystem::path jsonl = Path("all.jsonl");
  const RunResult exported = Cli({"export", "--output", jsonl.string()});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  std::vector<nlohmann::json> lines = JsonLines(ReadText(jsonl));
  ASSERT_GE(lines.size(), 2u);
  const nlohmann::json trailer = lines.back().value("trailer", nlohmann::json());
  ASSERT_TRUE(trailer.is_object()) << lines.back().dump();
  const int64_t head = IntAt(trailer, "head_seq");
  ASSERT_EQ(static_cast<int64_t>(lines.size()) - 1, head);
  for (int64_t i = 0; i < head; ++i) EXPECT_EQ(IntAt(lines[i], "seq"), i + 1);
  EXPECT_EQ(trailer.value("key_id", ""), key_id);
  EXPECT_THAT(exported.err, HasSubstr(absl::StrCat("exported ", head, " events, seq 1..", head,
                                                   ", trailer signed by key ", key_id)));
  const std::vector<store::RecordedEvent> log = ReadLog();
  ASSERT_GE(static_cast<int64_t>(log.size()), head);

  // The other formats of the same events (the log may have grown since).
  const std::string until = absl::StrCat(head);
  const std::filesystem::path cloudevents = Path("all.cloudevents");
  ASSERT_EQ(Cli({"export", "--format", "cloudevents", "--until-seq", until, "--output",
                 cloudevents.string()})
                .exit_code,
            0);
  lines = JsonLines(ReadText(cloudevents));
  ASSERT_EQ(static_cast<int64_t>(lines.size()), head + 1);
  for (int64_t i = 0; i < head; ++i) {
    EXPECT_EQ(lines[i].value("specversion", ""), "1.0");
    EXPECT_EQ(IntAt(lines[i], "seq"), i + 1);
  }
  EXPECT_EQ(lines.back().value("type", ""), "credledger.v1.ExportTrailer");

  const std::filesystem::path csv = Path("all.csv");
  const RunResult csv_run =
      Cli({"export", "--format", "csv", "--until-seq", until, "--output", csv.string()});
  ASSERT_EQ(csv_run.exit_code, 0) << csv_run.err;
  EXPECT_THAT(csv_run.err, HasSubstr("csv has no trailer and does not verify"));
  const std::string csv_text = ReadText(csv);
  EXPECT_TRUE(absl::EndsWith(csv_text, "\r\n"));
  const std::vector<std::string> rows =
      absl::StrSplit(csv_text, "\r\n", absl::SkipEmpty());
  ASSERT_EQ(static_cast<int64_t>(rows.size()), head + 1) << "the header and one row per event";
  EXPECT_THAT(rows[0], StartsWith("seq,recorded_at,stream,stream_version,type,"));
  for (int64_t i = 1; i <= head; ++i) {
    EXPECT_THAT(rows[i], StartsWith(absl::StrCat(i, ",")));
    EXPECT_THAT(rows[i], HasSubstr(log[i - 1].type));
  }

  // One Target's stream only, and event types given short and comma-separated.
  const std::filesystem::path one_target = Path("edge-1.jsonl");
  ASSERT_EQ(Cli({"export", "--target", "demo/edge-1", "--until-seq", until, "--output",
                 one_target.string()})
                .exit_code,
            0);
  lines = JsonLines(ReadText(one_target));
  int64_t in_stream = 0;
  for (int64_t i = 0; i < head; ++i) in_stream += log[i].stream == kTargetStream;
  ASSERT_EQ(static_cast<int64_t>(lines.size()), in_stream + 1);
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    EXPECT_EQ(lines[i].value("stream", ""), kTargetStream);
  }
  const RunResult typed =
      Cli({"export", "--type", "CredentialIssued,TargetRegistered", "--type",
           "credledger.v1.CredentialMintRequested", "--until-seq", until});
  ASSERT_EQ(typed.exit_code, 0) << typed.err;
  const std::set<std::string> wanted = {"credledger.v1.CredentialIssued",
                                        "credledger.v1.TargetRegistered",
                                        "credledger.v1.CredentialMintRequested"};
  std::vector<int64_t> wanted_seqs, typed_seqs;
  for (int64_t i = 0; i < head; ++i) {
    if (wanted.count(log[i].type) > 0) wanted_seqs.push_back(log[i].seq);
  }
  EXPECT_GE(wanted_seqs.size(), 6u) << "per Target a registration, a mint request and an issue";
  lines = JsonLines(typed.out);
  ASSERT_FALSE(lines.empty());
  for (size_t i = 0; i + 1 < lines.size(); ++i) typed_seqs.push_back(IntAt(lines[i], "seq"));
  EXPECT_EQ(typed_seqs, wanted_seqs);

  // Offline verification of the verifiable exports.
  for (const std::filesystem::path& file : {jsonl, cloudevents, one_target}) {
    const RunResult verified = Offline({"verify", file.string(), "--public-key", public_key});
    EXPECT_EQ(verified.exit_code, 0) << file << ": " << verified.out << verified.err;
    EXPECT_THAT(verified.out, StartsWith("OK: ")) << file;
  }
  EXPECT_THAT(Offline({"verify", jsonl.string(), "--public-key", public_key}).out,
              StartsWith(absl::StrCat("OK: ", head, " events, seq 1..", head, ", head ", head)));
  // The auditor saw the log further than this export reaches.
  const RunResult stale = Offline({"verify", jsonl.string(), "--public-key", public_key,
                                   "--min-seq", absl::StrCat(head + 1)});
  EXPECT_EQ(stale.exit_code, 1);
  EXPECT_THAT(stale.out, HasSubstr("stale"));
  // Another key did not sign it.
  GenerateKey("other");
  const RunResult forged =
      Offline({"verify", jsonl.string(), "--public-key", Path("other.pub.pem").string()});
  EXPECT_EQ(forged.exit_code, 1);
  EXPECT_THAT(forged.out, StartsWith("FAILED"));

  // One base64 character of a stored payload flipped.
  const store::RecordedEvent issued =
      OnlyEvent(log, "credledger.v1.CredentialIssued", kTargetStream);
  std::vector<std::string> file_lines = absl::StrSplit(ReadText(jsonl), '\n');
  ASSERT_GE(static_cast<int64_t>(file_lines.size()), issued.seq);
  std::string& line = file_lines[issued.seq - 1];
  const std::string payload_key = "\"payload_b64\":\"";
  const size_t at = line.find(payload_key);
  ASSERT_NE(at, std::string::npos) << line;
  char& flipped = line[at + payload_key.size()];
  flipped = flipped == 'A' ? 'B' : 'A';
  const std::filesystem::path tampered = Path("tampered.jsonl");
  WriteText(tampered, absl::StrJoin(file_lines, "\n"));
  const RunResult caught = Offline({"verify", tampered.string(), "--public-key", public_key});
  EXPECT_EQ(caught.exit_code, 1);
  EXPECT_THAT(caught.out, StartsWith(absl::StrCat("FAILED at seq ", issued.seq, ": ")));

  // Usage errors and unreadable input.
  EXPECT_EQ(Offline({"verify", jsonl.string()}).exit_code, 2);
  EXPECT_EQ(Offline({"verify", "--public-key", public_key}).exit_code, 2);
  EXPECT_EQ(Offline({"verify", "--previous", jsonl.string(), "--public-key", public_key}).exit_code,
            2);
  // "-" reads stdin (here empty: no trailer).
  const RunResult from_stdin = Offline({"verify", "-", "--public-key", public_key});
  EXPECT_EQ(from_stdin.exit_code, 1);
  EXPECT_THAT(from_stdin.out, StartsWith("FAILED"));
  const RunResult missing =
      Offline({"verify", Path("missing.jsonl").string(), "--public-key", public_key});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.err, StartsWith("error: "));
  EXPECT_EQ(Cli({"export", "--stream", kTargetStream, "--target", "demo/edge-1"}).exit_code, 2);
  EXPECT_EQ(Cli({"export", "--from", "yesterday"}).exit_code, 2);
  // A filter the server refuses: nothing to resume.
  const RunResult refused = Cli({"export", "--type", "NoSuchEvent"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.err, StartsWith("error: INVALID_ARGUMENT: "));
  EXPECT_THAT(refused.err, ::testing::Not(HasSubstr("incomplete")));
  // An existing file is an earlier export: refused without --overwrite, nothing written.
  const std::string before = ReadText(jsonl);
  const RunResult exists = Cli({"export", "--until-seq", "1", "--output", jsonl.string()});
  EXPECT_EQ(exists.exit_code, 1);
  EXPECT_EQ(exists.err, absl::StrCat("error: --output: \"", jsonl.string(),
                                     "\" exists; pass --overwrite to replace it once the new "
                                     "export is complete, or choose another path\n"));
  EXPECT_EQ(ReadText(jsonl), before);
  // A failed export, even with --overwrite, keeps the earlier good export there.
  EXPECT_EQ(
      Cli({"export", "--type", "NoSuchEvent", "--overwrite", "--output", jsonl.string()}).exit_code,
      1);
  EXPECT_EQ(ReadText(jsonl), before);
  // The .partial of an interrupted export is never truncated, --overwrite or not.
  const std::filesystem::path interrupted_part = jsonl.string() + ".partial";
  WriteText(interrupted_part, "the first part\n");
  const RunResult interrupted = Cli({"export", "--overwrite", "--output", jsonl.string()});
  EXPECT_EQ(interrupted.exit_code, 1);
  EXPECT_THAT(interrupted.err,
              StartsWith(absl::StrCat("error: --output: \"", interrupted_part.string(),
                                      "\" exists: an interrupted export")));
  EXPECT_EQ(ReadText(interrupted_part), "the first part\n");
  EXPECT_EQ(ReadText(jsonl), before);
  std::filesystem::remove(interrupted_part);
  // --output - is stdout, as in most tools: no file named "-".
  const RunResult dash = Cli({"export", "--until-seq", "1", "--output", "-"});
  ASSERT_EQ(dash.exit_code, 0) << dash.err;
  EXPECT_EQ(JsonLines(dash.out).size(), 2u);
  EXPECT_FALSE(std::filesystem::exists("-"));
  EXPECT_EQ(Cli({"export", "--output", "-", "--overwrite"}).exit_code, 2);
  // With --overwrite, a complete export replaces the file: seq 1 and its trailer.
  const RunResult replaced =
      Cli({"export", "--until-seq", "1", "--overwrite", "--output", jsonl.string()});
  ASSERT_EQ(replaced.exit_code, 0) << replaced.err;
  const std::vector<nlohmann::json> replaced_lines = JsonLines(ReadText(jsonl));
  ASSERT_EQ(replaced_lines.size(), 2u);
  EXPECT_EQ(IntAt(replaced_lines[0], "seq"), 1);
  EXPECT_TRUE(replaced_lines[1].contains("trailer"));
  // A --target that is not a Target name is refused before anything is asked.
  EXPECT_EQ(Cli({"export", "--target", "Demo/edge-1"}).exit_code, 2);
  // A write that fails (a full disk) leaves an incomplete export and names the resume point.
  const RunResult full = Cli({"export", "--after-seq", "3", "--output", "/dev/full"});
  EXPECT_EQ(full.exit_code, 1);
  EXPECT_THAT(full.err, StartsWith("error: "));
  EXPECT_THAT(full.err, HasSubstr("the export is incomplete: resume with --after-seq 3\n"));

  // The database itself, copied after serve stopped.
  StopServe();
  // An export from a server that is gone writes no event: no file, and no empty .partial.
  const std::filesystem::path unreached = Path("unreached.jsonl");
  const RunResult gone = Cli({"export", "--output", unreached.string()});
  EXPECT_EQ(gone.exit_code, 1);
  EXPECT_THAT(gone.err, HasSubstr("the export is incomplete: resume with --after-seq 0\n"));
  EXPECT_FALSE(std::filesystem::exists(unreached));
  EXPECT_FALSE(std::filesystem::exists(unreached.string() + ".partial"));
  const std::filesystem::path copy = CopyDatabase();
  const RunResult db_verified =
      Offline({"verify", "--db", copy.string(), "--public-key", public_key});
  EXPECT_EQ(db_verified.exit_code, 0) << db_verified.out << db_verified.err;
  EXPECT_THAT(db_verified.out, StartsWith("OK: "));
}

// Regression: a type filter skips seqs and stream versions, so no chain linked one exported
// CredentialIssued to the next and the trailer named only each stream's last line: an
// earlier credential's line, its token fingerprint and Secret name edited in the stored bytes
// and in `data`, its digest and chain_hash recomputed and anything in its stream_hash,
// verified OK.
TEST_F(AuditCliTest, EditedCredentialOfATypeFilteredExportFailsAndExportsStayConsistent) {
  GenerateKey("signing");
  const std::string public_key = Path("signing.pub.pem").string();
  ASSERT_NO_FATAL_FAILURE(StartServe("", {"--signing-key", Path("signing.pem").string()}));
  ASSERT_NO_FATAL_FAILURE(RegisterAndWaitForCredential(kTarget));
  ASSERT_EQ(Cli({"target", "rotate", "demo/edge-1"}).exit_code, 0);
  ASSERT_FALSE(WaitForCurrentCredential(kTarget, 2).is_null());
  const std::filesystem::path earlier = Path("earlier.jsonl");
  ASSERT_EQ(Cli({"export", "--output", earlier.string()}).exit_code, 0);

  const std::filesystem::path issued = Path("issued.jsonl");
  const RunResult exported =
      Cli({"export", "--type", "CredentialIssued", "--output", issued.string()});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  ASSERT_EQ(Offline({"verify", issued.string(), "--public-key", public_key}).exit_code, 0);
  std::vector<std::string> lines = absl::StrSplit(ReadText(issued), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 3u) << "two credentials and the trailer";
  absl::StatusOr<audit::ExportLine> parsed =
      audit::ParseLine(audit::ExportFormat::kJsonLines, lines[0]);
  ASSERT_OK(parsed);
  store::RecordedEvent forged = std::get<audit::ExportRecord>(*parsed).event;
  v1::CredentialIssued credential;
  ASSERT_TRUE(credential.ParseFromString(forged.payload));
  credential.set_token_fingerprint("0123456789abcdef");
  credential.mutable_secret()->set_name("solar-agent-edge-1-9");
  forged.payload = store::SerializeDeterministic(credential);
  forged.digest = store::EventDigest(forged);
  forged.chain_hash = store::NextChainHash(forged.prev_chain_hash, forged.digest);
  forged.stream_hash = std::string(32, '\x01');
  absl::StatusOr<std::string> forged_line =
      audit::RenderEvent(audit::ExportFormat::kJsonLines, forged, store::EventCodec::Default());
  ASSERT_OK(forged_line);
  ASSERT_THAT(*forged_line, HasSubstr("\"token_fingerprint\":\"0123456789abcdef\""));
  lines[0] = *forged_line;
  const std::filesystem::path tampered = Path("tampered.jsonl");
  WriteText(tampered, absl::StrJoin(lines, "\n") + "\n");
  const RunResult caught = Offline({"verify", tampered.string(), "--public-key", public_key});
  EXPECT_EQ(caught.exit_code, 1);
  EXPECT_THAT(caught.out, StartsWith("FAILED: trailer mismatch: the exported lines do not hash "
                                     "to the trailer's signed lines_hash"));

  // The next export holds the earlier one's head.
  ASSERT_EQ(Cli({"target", "rotate", "demo/edge-1"}).exit_code, 0);
  ASSERT_FALSE(WaitForCurrentCredential(kTarget, 3).is_null());
  const std::filesystem::path later = Path("later.jsonl");
  ASSERT_EQ(Cli({"export", "--output", later.string()}).exit_code, 0);
  const RunResult consistent = Offline(
      {"verify", later.string(), "--previous", earlier.string(), "--public-key", public_key});
  EXPECT_EQ(consistent.exit_code, 0) << consistent.out << consistent.err;
  EXPECT_THAT(consistent.out, HasSubstr("\nearlier head confirmed: seq "));
  const RunResult behind = Offline(
      {"verify", earlier.string(), "--previous", later.string(), "--public-key", public_key});
  EXPECT_EQ(behind.exit_code, 1);
  EXPECT_THAT(behind.out, StartsWith("FAILED: stale: "));

  // A copy of the database names the edited line and confirms the earlier head.
  StopServe();
  const std::filesystem::path copy = CopyDatabase();
  const RunResult named =
      Offline({"verify", tampered.string(), "--db", copy.string(), "--public-key", public_key});
  EXPECT_EQ(named.exit_code, 1);
  EXPECT_THAT(named.out, StartsWith(absl::StrCat(
                             "FAILED at seq ", forged.seq, ": database mismatch: line 1 (seq ",
                             forged.seq, "): its payload differs from the database's event")));
  const RunResult database = Offline({"verify", "--db", copy.string(), "--previous",
                                      earlier.string(), "--public-key", public_key});
  EXPECT_EQ(database.exit_code, 0) << database.out << database.err;
  EXPECT_THAT(database.out, HasSubstr(" in the database\n"));
}

TEST_F(AuditCliTest, ForensicCommandsAnswerFromTheLogAndTheSameFromACopiedDatabase) {
  ASSERT_NO_FATAL_FAILURE(StartServe());
  // Times as the API takes them: microseconds.
  const auto micros_now = [] { return absl::FromUnixMicros(absl::ToUnixMicros(absl::Now())); };
  const std::string before_registration = common::FormatRfc3339(micros_now());
  ASSERT_NO_FATAL_FAILURE(RegisterAndWaitForCredential(kTarget));
  const std::string now = common::FormatRfc3339(micros_now());
  const std::vector<store::RecordedEvent> log = ReadLog();
  ASSERT_FALSE(log.empty());
  const int64_t head = log.back().seq;
  const store::RecordedEvent issued =
      OnlyEvent(log, "credledger.v1.CredentialIssued", kTargetStream);
  ASSERT_GT(issued.seq, 1);
  const std::string before_issue = absl::StrCat(issued.seq - 1);
  const std::vector<nlohmann::json> secrets = CredentialSecrets(kTarget);
  ASSERT_EQ(secrets.size(), 1u);
  const std::string token = TokenOf(secrets[0]);
  ASSERT_FALSE(token.empty());
  const std::string fingerprint =
      common::HexEncode(absl::string_view(
                            reinterpret_cast<const char*>(common::Sha256Of(token).data()), 32))
          .substr(0, 16);
  // The time of the event before the issue, written with another offset: the state after
  // the last event recorded at or before it.
  const int64_t before_issue_us = log[issued.seq - 2].recorded_at_us;
  const std::string before_issue_plus_two =
      absl::FormatTime("%Y-%m-%dT%H:%M:%E6S%Ez", absl::FromUnixMicros(before_issue_us),
                       absl::FixedTimeZone(2 * 3600));
  ASSERT_THAT(before_issue_plus_two, ::testing::EndsWith("+02:00"));
  int64_t seq_at_before_issue_time = 0;
  for (const store::RecordedEvent& e : log) {
    if (e.recorded_at_us <= before_issue_us) seq_at_before_issue_time = e.seq;
  }

  const std::map<std::string, std::vector<std::string>> questions = {
      {"replay before the credential",
       {"replay", "--as-of", before_issue, "--target", "demo/edge-1"}},
      {"replay at the head", {"replay", "--as-of", absl::StrCat(head)}},
      {"replay at a time before the issue", {"replay", "--as-of", before_issue_plus_two}},
      {"timeline", {"timeline", "demo/edge-1"}},
      {"valid now", {"valid-credentials", "--at", now}},
      {"valid before", {"valid-credentials", "--at", before_registration, "--target",
                        "demo/edge-1"}},
      {"diff", {"diff", "--from", before_issue, "--to", absl::StrCat(head), "--target",
                "demo/edge-1"}},
  };
  std::map<std::string, RunResult> text, json;
  for (const auto& [what, args] : questions) {
    text[what] = Cli(args);
    EXPECT_EQ(text[what].exit_code, 0) << what << ": " << text[what].err;
    std::vector<std::string> json_args = args;
    json_args.insert(json_args.end(), {"--output", "json"});
    json[what] = Cli(json_args);
    EXPECT_EQ(json[what].exit_code, 0) << what << ": " << json[what].err;
    EXPECT_THAT(text[what].out + json[what].out, ::testing::Not(HasSubstr(token))) << what;
  }

  // replay: no credential before the issue, at the head the Secret.
  EXPECT_THAT(text["replay before the credential"].out,
              StartsWith(absl::StrCat("as of seq ", before_issue, " (recorded ")));
  EXPECT_THAT(text["replay before the credential"].out, HasSubstr("secret:      none\n"));
  nlohmann::json state = nlohmann::json::parse(json["replay before the credential"].out,
                                               nullptr, /*allow_exceptions=*/false);
  ASSERT_TRUE(state.is_object());
  ASSERT_EQ(state.value("targets", nlohmann::json::array()).size(), 1u);
  EXPECT_TRUE(kubebridge::StringAt(state["targets"][0], {"current_credential", "secret_name"})
                  .empty());
  EXPECT_THAT(text["replay at the head"].out, HasSubstr("service: credentials enabled"));
  EXPECT_THAT(text["replay at the head"].out, HasSubstr(kSecret));
  state = nlohmann::json::parse(json["replay at the head"].out, nullptr, false);
  ASSERT_TRUE(state.is_object());
  EXPECT_EQ(IntAt(state, "seq"), head);
  ASSERT_EQ(state.value("targets", nlohmann::json::array()).size(), 1u);
  EXPECT_EQ(kubebridge::StringAt(state["targets"][0], {"current_credential", "secret_name"}),
            kSecret);
  state = nlohmann::json::parse(json["replay at a time before the issue"].out, nullptr, false);
  ASSERT_TRUE(state.is_object());
  EXPECT_EQ(IntAt(state, "seq"), seq_at_before_issue_time);
  ASSERT_EQ(state.value("targets", nlohmann::json::array()).size(), 1u);
  EXPECT_TRUE(kubebridge::StringAt(state["targets"][0], {"current_credential", "secret_name"})
                  .empty());

  // timeline: registered, mint requested, Secret created, credential issued, in this order.
  const std::vector<nlohmann::json> entries = JsonLines(json["timeline"].out);
  std::vector<std::string> types;
  for (const nlohmann::json& e : entries) {
    types.push_back(e.value("event_type", ""));
    if (types.back() == "CredentialIssued") {
      EXPECT_EQ(e.value("secret_name", ""), kSecret);
      EXPECT_EQ(IntAt(e, "seq"), issued.seq);
    }
  }
  std::vector<std::string> milestones;
  for (const std::string& type : types) {
    if (type == "TargetRegistered" || type == "CredentialMintRequested" ||
        type == "CredentialSecretCreated" || type == "CredentialIssued") {
      milestones.push_back(type);
    }
  }
  EXPECT_THAT(milestones, ::testing::ElementsAre("TargetRegistered", "CredentialMintRequested",
                                                 "CredentialSecretCreated", "CredentialIssued"));
  const std::vector<std::string> text_lines =
      absl::StrSplit(text["timeline"].out, '\n', absl::SkipEmpty());
  EXPECT_EQ(text_lines.size(), entries.size());
  EXPECT_THAT(text["timeline"].out, HasSubstr(absl::StrCat("secret=", kSecret)));

  // valid-credentials: the Secret's token now (by fingerprint), nothing before.
  EXPECT_THAT(text["valid now"].out,
              HasSubstr(absl::StrCat("demo/edge-1  secret=", kSecret, "  tag=")));
  EXPECT_THAT(text["valid now"].out, HasSubstr(absl::StrCat("token=", fingerprint)));
  EXPECT_THAT(text["valid now"].out, HasSubstr(absl::StrCat("1 credential valid at ", now)));
  EXPECT_EQ(text["valid before"].out,
            absl::StrCat("0 credentials valid at ", before_registration, " (log head seq ",
                         IntAt(nlohmann::json::parse(json["valid before"].out, nullptr, false),
                               "head_seq"),
                         ")\n"));

  // diff: the credential issued between the two points, with its event's seq.
  EXPECT_THAT(text["diff"].out, StartsWith(absl::StrCat("from seq ", before_issue, " to seq ",
                                                        head, ": ")));
  EXPECT_THAT(text["diff"].out, HasSubstr(absl::StrCat("seq ", issued.seq, "  demo/edge-1  ")));
  const nlohmann::json diff = nlohmann::json::parse(json["diff"].out, nullptr, false);
  ASSERT_TRUE(diff.is_object());
  bool issue_found = false;
  for (const nlohmann::json& change : diff.value("changes", nlohmann::json::array())) {
    if (change.value("kind", "") != "KIND_CREDENTIAL_ISSUED") continue;
    issue_found = true;
    EXPECT_EQ(change.value("secret_name", ""), kSecret);
    EXPECT_EQ(IntAt(change, "seq"), issued.seq);
  }
  EXPECT_TRUE(issue_found) << json["diff"].out;

  // Usage errors.
  EXPECT_EQ(Cli({"replay", "--as-of", "yesterday"}).exit_code, 2);
  EXPECT_EQ(Cli({"replay"}).exit_code, 2);
  EXPECT_EQ(Cli({"replay", "--as-of", "1", "--target", "demo/edge-1", "--namespace", "demo"})
                .exit_code,
            2);
  EXPECT_EQ(Cli({"valid-credentials"}).exit_code, 2);
  EXPECT_EQ(Cli({"diff", "--from", "1"}).exit_code, 2);
  EXPECT_EQ(Cli({"timeline", "edge-1"}).exit_code, 2);
  EXPECT_EQ(Cli({"timeline"}).exit_code, 2);
  EXPECT_EQ(Cli({"timeline", "demo/edge-1", "--identity", "aws"}).exit_code, 2);
  // An identity without events is the server's NOT_FOUND, not a usage error.
  const RunResult unknown_identity = Cli({"timeline", "--identity", "aws"});
  EXPECT_EQ(unknown_identity.exit_code, 1);
  EXPECT_THAT(unknown_identity.err, HasSubstr("identity \"aws\" has no events"));

  // The same questions of a copy of the database, without a server: the same answers.
  StopServe();
  const std::filesystem::path copy = CopyDatabase();
  for (const auto& [what, args] : questions) {
    std::vector<std::string> db_args = args;
    db_args.insert(db_args.end(), {"--db", copy.string()});
    const RunResult db_text = Offline(db_args);
    EXPECT_EQ(db_text.exit_code, 0) << what << ": " << db_text.err;
    EXPECT_EQ(db_text.out, text[what].out) << what;
    db_args.insert(db_args.end(), {"--output", "json"});
    const RunResult db_json = Offline(db_args);
    EXPECT_EQ(db_json.exit_code, 0) << what << ": " << db_json.err;
    EXPECT_EQ(db_json.out, json[what].out) << what;
  }
}

}  // namespace audit_cli_test
}  // namespace credledger::testing
