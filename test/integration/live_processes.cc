#include "test/integration/live_processes.h"

#include <signal.h>

#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/client/kubeconfig.h"
#include "kubebridge/credentials/agent_objects.h"
#include "store/event_log.h"
#include "test/support/status_matchers.h"

namespace credledger::testing {
namespace {

constexpr char kCredledger[] = CREDLEDGER_BINARY;
constexpr char kApiServer[] = CREDLEDGER_TEST_APISERVER_BINARY;
// Variables of the test's environment that would change what the children do.
const std::vector<std::string> kCleanEnv = {"CREDLEDGER_SERVER", "KUBECONFIG",
                                            "CREDLEDGER_FAULT_POINTS", "PGPASSWORD"};
// Events ReadLog reads per page.
constexpr int kReadLogPage = 1000;

std::string ReadBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// The point named by the "fault point reached" line of `log` (JSON lines, common/log.h);
// "" when there is none.
std::string FaultPointReached(const std::string& log) {
  for (absl::string_view line : absl::StrSplit(log, '\n')) {
    if (!absl::StrContains(line, "\"msg\":\"fault point reached\"")) continue;
    const nlohmann::json parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_object()) return parsed.value("point", "");
  }
  return "";
}

std::string FirstLine(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

void LiveProcessTest::SetUp() {
  const std::filesystem::path state = dir_.path() / "kubeapi";
  const std::filesystem::path port_file = dir_.path() / "kubeapi.port";
  ASSERT_OK_AND_ASSIGN(
      apiserver_, Subprocess::Start(
                      {kApiServer, "--state-dir", state.string(), "--port-file", port_file.string(),
                       "--namespaces", kLiveNamespace},
                      kCleanEnv));
  ASSERT_OK(apiserver_->WaitForLine("listening on", absl::Now() + kLiveWait));
  const std::string port = FirstLine(port_file);
  ASSERT_FALSE(port.empty());
  apiserver_url_ = absl::StrCat("https://127.0.0.1:", port);

  ASSERT_OK_AND_ASSIGN(kubebridge::ConnectionConfig connection,
                       kubebridge::LoadKubeconfig(state / "kubeconfig"));
  ASSERT_EQ(connection.server, apiserver_url_);
  kubebridge::KubeClientOptions options;
  options.rate_limit = {1000, 1000};
  ASSERT_OK_AND_ASSIGN(admin_, kubebridge::KubeClient::New(connection, options));
}

void LiveProcessTest::TearDown() {
  if (serve_ != nullptr) StopServe();
  if (admin_ != nullptr) admin_->Stop();
  if (apiserver_ != nullptr) {
    apiserver_->Signal(SIGTERM);
    absl::StatusOr<int> code = apiserver_->Wait(absl::Now() + kLiveWait);
    EXPECT_OK(code);
    EXPECT_EQ(code.value_or(-1), 0) << apiserver_->err();
  }
}

void LiveProcessTest::StartServe(const std::string& fault_points,
                                 const std::vector<std::string>& extra_args) {
  LaunchServe(fault_points, extra_args);
  ASSERT_NE(serve_, nullptr);
  ASSERT_TRUE(AwaitServeReady()) << serve_->err();
}

void LiveProcessTest::LaunchServe(const std::string& fault_points,
                                  const std::vector<std::string>& extra_args) {
  ASSERT_EQ(serve_, nullptr) << "serve already runs";
  std::filesystem::remove(serve_port_file());
  serve_address_.clear();
  std::vector<std::string> extra_env;
  if (!fault_points.empty()) extra_env.push_back("CREDLEDGER_FAULT_POINTS=" + fault_points);
  const std::filesystem::path state = dir_.path() / "kubeapi";
  std::vector<std::string> argv = {kCredledger,
                                   "serve",
                                   "--listen",
                                   "127.0.0.1:0",
                                   "--port-file",
                                   serve_port_file().string(),
                                   "--kubeconfig",
                                   (state / "kubeconfig").string(),
                                   "--agent-apiserver-url",
                                   apiserver_url_,
                                   "--agent-ca-file",
                                   (state / "ca.crt").string(),
                                   "--kube-qps",
                                   "1000",
                                   "--kube-burst",
                                   "1000",
                                   "--insecure-allow-all"};
  const std::vector<std::string> log_flags = LogFlags();
  argv.insert(argv.end(), log_flags.begin(), log_flags.end());
  if (postgres_ != nullptr) {
    argv.insert(argv.end(), {"--fingerprint-key", fingerprint_key_file().string()});
  }
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  ASSERT_OK_AND_ASSIGN(serve_, Subprocess::Start(argv, kCleanEnv, extra_env));
}

bool LiveProcessTest::AwaitServeReady() {
  absl::StatusOr<std::string> ready =
      serve_->WaitForLine("credledger serving on", absl::Now() + kLiveWait);
  if (absl::IsNotFound(ready.status())) return false;  // it ended before it was ready
  EXPECT_OK(ready);
  if (!ready.ok()) return false;
  serve_address_ = absl::StrCat("127.0.0.1:", FirstLine(serve_port_file()));
  EXPECT_EQ(*ready, absl::StrCat("credledger serving on ", serve_address_, " (plaintext)"));
  return true;
}

void LiveProcessTest::KillServe() {
  ASSERT_NE(serve_, nullptr);
  serve_->Signal(SIGKILL);
  EXPECT_EQ(ReapServe(), 128 + SIGKILL) << serve_outputs_.back();
}

int LiveProcessTest::ReapServe() {
  absl::StatusOr<int> code = serve_->Wait(absl::Now() + kLiveWait);
  EXPECT_OK(code);
  serve_outputs_.push_back(serve_->out());
  serve_outputs_.push_back(serve_->err());
  serve_.reset();
  return code.value_or(-1);
}

void LiveProcessTest::StopServe() {
  ASSERT_NE(serve_, nullptr);
  serve_->Signal(SIGTERM);
  EXPECT_EQ(ReapServe(), 0) << serve_outputs_.back();
}

std::string LiveProcessTest::AwaitServeEnd(absl::Time deadline) {
  EXPECT_NE(serve_, nullptr);
  if (serve_ == nullptr) return "";
  // Past the deadline Wait kills serve: the same SIGKILL as KillServe.
  const int code = serve_->Wait(deadline).value_or(128 + SIGKILL);
  EXPECT_EQ(code, 128 + SIGKILL) << serve_->err();
  std::string point = FaultPointReached(serve_->err());
  serve_outputs_.push_back(serve_->out());
  serve_outputs_.push_back(serve_->err());
  serve_.reset();
  return point;
}

void LiveProcessTest::ExpectServeKilledByFaultPoint(const std::string& point) {
  const std::string reached = AwaitServeEnd(absl::Now() + kLiveWait);
  EXPECT_EQ(reached, point) << (serve_outputs_.empty() ? "" : serve_outputs_.back());
}

std::vector<std::string> LiveProcessTest::CliArgv(std::vector<std::string> args) const {
  args.insert(args.begin(), kCredledger);
  args.push_back("--server");
  args.push_back(serve_address_);
  return args;
}

absl::StatusOr<std::unique_ptr<Subprocess>> LiveProcessTest::StartCli(
    std::vector<std::string> args) {
  return Subprocess::Start(CliArgv(std::move(args)), kCleanEnv);
}

std::filesystem::path LiveProcessTest::WriteAgentKubeconfig(const std::string& token) {
  const std::filesystem::path agent = dir_.path() / "agent";
  std::filesystem::create_directories(agent);
  const std::filesystem::path kubeconfig = agent / "kubeconfig";
  {
    std::ofstream out(kubeconfig);
    out << "apiVersion: v1\nkind: Config\ncurrent-context: solar\n"
        << "clusters:\n- name: solar\n  cluster:\n    server: " << apiserver_url_ << "\n"
        << "    certificate-authority: " << (dir_.path() / "kubeapi" / "ca.crt").string() << "\n"
        << "users:\n- name: agent\n  user:\n    tokenFile: " << (agent / "token").string()
        << "\ncontexts:\n- name: solar\n  context: {cluster: solar, user: agent}\n";
  }
  {
    std::ofstream out(agent / "token.tmp", std::ios::trunc);
    out << token;
  }
  std::filesystem::rename(agent / "token.tmp", agent / "token");
  return kubeconfig;
}

std::vector<std::string> LiveProcessTest::AgentArgv(const std::string& target) const {
  return {kCredledger,          "agent",
          "--target-namespace", kLiveNamespace,
          "--target-name",      target,
          "--solar-kubeconfig", (dir_.path() / "agent" / "kubeconfig").string(),
          "--kubeconfig",       (dir_.path() / "kubeapi" / "kubeconfig").string()};
}

absl::StatusOr<std::unique_ptr<Subprocess>> LiveProcessTest::StartAgent(
    const std::string& target, const std::vector<std::string>& extra_args) {
  std::vector<std::string> argv = AgentArgv(target);
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  return Subprocess::Start(argv, kCleanEnv);
}

RunResult LiveProcessTest::RunAgentOnce(const std::string& target) {
  std::vector<std::string> argv = AgentArgv(target);
  argv.push_back("--once");
  absl::StatusOr<RunResult> result = testing::Run(argv, kLiveWait, kCleanEnv);
  EXPECT_OK(result);
  if (!result.ok()) return RunResult{};
  cli_outputs_.push_back(*result);
  return *result;
}

RunResult LiveProcessTest::Cli(std::vector<std::string> args) {
  return RunAndKeep(CliArgv(std::move(args)));
}

RunResult LiveProcessTest::OfflineCli(std::vector<std::string> args) {
  args.insert(args.begin(), kCredledger);
  return RunAndKeep(args);
}

RunResult LiveProcessTest::RunAndKeep(const std::vector<std::string>& argv) {
  absl::StatusOr<RunResult> result = testing::Run(argv, kLiveWait, kCleanEnv);
  EXPECT_OK(result);
  if (!result.ok()) return RunResult{};
  cli_outputs_.push_back(*result);
  return *result;
}

nlohmann::json LiveProcessTest::WaitForTarget(
    const std::string& target, const std::function<bool(const nlohmann::json&)>& done,
    const std::string& what) {
  return WaitForWatchItem({"target", "watch", "--namespace", kLiveNamespace}, "target", target,
                          done, what);
}

nlohmann::json LiveProcessTest::WaitForStatus(
    const std::string& target, const std::function<bool(const nlohmann::json&)>& done,
    const std::string& what) {
  return WaitForWatchItem({"fleet", "--watch", "--namespace", kLiveNamespace}, "status", target,
                          done, what);
}

nlohmann::json LiveProcessTest::WaitForWatchItem(
    std::vector<std::string> watch_args, const std::string& item_key, const std::string& target,
    const std::function<bool(const nlohmann::json&)>& done, const std::string& what) {
  watch_args.push_back("--output");
  watch_args.push_back("json");
  absl::StatusOr<std::unique_ptr<Subprocess>> watch = StartCli(std::move(watch_args));
  EXPECT_OK(watch);
  if (!watch.ok()) return nullptr;
  const absl::Time deadline = absl::Now() + kLiveWait;
  nlohmann::json found = nullptr;
  while (found.is_null()) {
    absl::StatusOr<std::string> line = (*watch)->WaitForLine("\"seq\"", deadline);
    if (!line.ok()) {
      ADD_FAILURE() << "waiting for " << what << ": " << line.status();
      break;
    }
    nlohmann::json item = nlohmann::json::parse(*line, nullptr, /*allow_exceptions=*/false);
    const nlohmann::json& t = item.is_object() ? item.value(item_key, nlohmann::json()) : item;
    if (t.is_object() && t.value("name", "") == target && done(t)) found = t;
  }
  (*watch)->Signal(SIGTERM);
  EXPECT_OK((*watch)->Wait(absl::Now() + kLiveWait));
  cli_outputs_.push_back(RunResult{0, (*watch)->out(), (*watch)->err()});
  return found;
}

nlohmann::json LiveProcessTest::WaitForCurrentCredential(const std::string& target,
                                                         int64_t min_suffix) {
  return WaitForTarget(
      target,
      [&](const nlohmann::json& t) {
        const std::string name = kubebridge::StringAt(t, {"current_credential", "secret_name"});
        return !name.empty() && kubebridge::CredentialSecretSuffix(target, name) >= min_suffix &&
               t.value("open_mint_attempt_id", "x").empty() &&
               kubebridge::StringAt(t, {"agent_credential_ready", "status"}) == "True";
      },
      absl::StrCat("a current credential ", kubebridge::CredentialSecretName(target, min_suffix),
                   " or later"));
}

std::vector<nlohmann::json> LiveProcessTest::CredentialSecrets(const std::string& target) {
  kubebridge::ListOptions options;
  options.label_selector = absl::StrCat(kubebridge::kCredentialLabel, "=", target);
  absl::StatusOr<kubebridge::ObjectList> list =
      admin_->List(kubebridge::SecretResource(kLiveNamespace), options);
  EXPECT_OK(list);
  return list.ok() ? list->items : std::vector<nlohmann::json>{};
}

std::string LiveProcessTest::TokenOf(const nlohmann::json& secret) {
  std::string token;
  if (!absl::Base64Unescape(kubebridge::StringAt(secret, {"data", kubebridge::kTokenKey}),
                            &token)) {
    return "";
  }
  return token;
}

std::string LiveProcessTest::ReviewedUser(const std::string& token) {
  const nlohmann::json review = {{"apiVersion", "authentication.k8s.io/v1"},
                                 {"kind", "TokenReview"},
                                 {"spec", {{"token", token}}}};
  absl::StatusOr<nlohmann::json> answer = admin_->Create(
      kubebridge::ResourceRef{"authentication.k8s.io", "v1", "tokenreviews", "", ""}, review);
  EXPECT_OK(answer);
  if (!answer.ok() || !answer->contains("status") ||
      !(*answer)["status"].value("authenticated", false)) {
    return "";
  }
  return kubebridge::StringAt(*answer, {"status", "user", "username"});
}

std::vector<store::RecordedEvent> LiveProcessTest::ReadLog(int64_t after_seq) {
  std::vector<store::RecordedEvent> events;
  absl::StatusOr<store::LogLocation> location = Location();
  EXPECT_OK(location);
  if (!location.ok()) return events;
  store::OpenLogOptions options;
  options.read_only = true;
  absl::StatusOr<std::unique_ptr<store::EventLog>> log = store::OpenLog(*location, options);
  EXPECT_OK(log);
  if (!log.ok()) return events;
  while (true) {
    absl::StatusOr<std::vector<store::RecordedEvent>> page =
        (*log)->ReadAll(events.empty() ? after_seq : events.back().seq, kReadLogPage);
    EXPECT_OK(page);
    if (!page.ok() || page->empty()) break;
    events.insert(events.end(), std::make_move_iterator(page->begin()),
                  std::make_move_iterator(page->end()));
  }
  return events;
}

void LiveProcessTest::UsePostgresLog(PostgresServer& server, const std::string& database) {
  ASSERT_EQ(serve_, nullptr) << "serve runs on the log it started with";
  {
    std::ofstream out(store_password_file());
    out << kLiveStorePassword << "\n";
  }
  const RunResult keygen =
      OfflineCli({"keygen", "--fingerprint-key", fingerprint_key_file().string()});
  ASSERT_EQ(keygen.exit_code, 0) << keygen.err;
  postgres_ = &server;
  postgres_database_ = database;
  postgres_conninfo_ = server.ConnectionString(database);
}

std::vector<std::string> LiveProcessTest::LogFlags() const {
  if (postgres_ == nullptr) return {"--db", db_path().string()};
  return {"--store", postgres_conninfo_, "--store-password-file", store_password_file().string()};
}

absl::StatusOr<store::LogLocation> LiveProcessTest::Location() const {
  if (postgres_ == nullptr) {
    return store::ParseLogLocation(db_path().string(), /*db_given=*/true, "", "");
  }
  return store::ParseLogLocation("", /*db_given=*/false, postgres_conninfo_,
                                 store_password_file().string());
}

void LiveProcessTest::KeepDatabaseFiles(const std::string& when) {
  if (postgres_ != nullptr) {
    KeepPostgresTables(when);
    return;
  }
  for (const char* suffix : {"", "-wal", "-shm"}) {
    const std::filesystem::path path = db_path().string() + suffix;
    if (!std::filesystem::exists(path)) continue;
    haystacks_.push_back({absl::StrCat(path.filename().string(), " ", when), ReadBytes(path)});
  }
}

void LiveProcessTest::KeepPostgresTables(const std::string& when) {
  absl::StatusOr<std::string> tables = postgres_->Sql(
      postgres_database_,
      "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename");
  ASSERT_OK(tables);
  for (absl::string_view table : absl::StrSplit(*tables, '\n', absl::SkipEmpty())) {
    absl::StatusOr<std::string> rows = postgres_->Sql(
        postgres_database_, absl::StrCat("COPY ", table, " TO STDOUT (FORMAT binary)"));
    ASSERT_OK(rows);
    haystacks_.push_back({absl::StrCat("table ", table, " ", when), *rows});
  }
  haystacks_.push_back(
      {absl::StrCat("PostgreSQL server log ", when), ReadBytes(postgres_->dir() / "log")});
}

void LiveProcessTest::KeepProcessOutputs() {
  for (const std::string& output : serve_outputs_) haystacks_.push_back({"serve output", output});
  for (const RunResult& run : cli_outputs_) {
    haystacks_.push_back({"cli stdout", run.out});
    haystacks_.push_back({"cli stderr", run.err});
  }
}

void LiveProcessTest::ExpectNotFoundAnywhere(const std::vector<std::string>& needles) {
  for (const std::string& needle : needles) {
    for (const Haystack& h : haystacks_) {
      const size_t at = h.bytes.find(needle);
      EXPECT_TRUE(at == std::string::npos)
          << "token bytes (" << needle.size() << " chars from \"" << needle.substr(0, 10)
          << "...\") found in " << h.what << " at byte " << at;
    }
  }
}

projections::CredentialProjection LiveProcessTest::Fold(
    const std::vector<store::RecordedEvent>& events) {
  projections::CredentialProjection projection;
  for (const store::RecordedEvent& e : events) {
    absl::StatusOr<std::vector<std::string>> changed = projection.Apply(e);
    EXPECT_TRUE(changed.ok()) << "seq " << e.seq << ": " << changed.status();
  }
  return projection;
}

}  // namespace credledger::testing
