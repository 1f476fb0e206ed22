#include "test/integration/crash_workload.h"

#include <grpcpp/grpcpp.h>
#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <thread>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "credledger/v1/api.grpc.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/credentials/agent_objects.h"
#include "kubebridge/credentials/credential_minter.h"
#include "projections/mirror_naming.h"
#include "projections/target_state.h"
#include "service/api/target_api.h"
#include "store/event_codec.h"
#include "test/integration/crash_fault_arming.h"
#include "test/integration/fault_point_list.h"
#include "test/support/bound_jobs.h"
#include "test/support/rbac_objects.h"
#include "test/support/status_matchers.h"

namespace credledger::testing::crash_workload {
namespace {

using crash_fault_arming::FaultPointRotation;
using crash_fault_arming::LastArrival;
using crash_workload_client::CommandAnswer;
using crash_workload_client::kTargetCount;
using crash_workload_client::Prepare;
using crash_workload_client::TargetName;
using crash_workload_client::Workload;
using crash_workload_client::WorkloadCommand;
using kubebridge::StringAt;

constexpr char kIdentity[] = "cloud";
constexpr char kSourceName[] = "cloud-keys";  // in kLiveNamespace
constexpr char kMirrorNamespace[] = "team-a";
// The Kubernetes user that may read the source (no policy file: the declared actor).
constexpr char kIdentityActor[] = "alice";
// Every this many cycles (and after the last) the bridge must catch up and the cluster is
// compared with the log.
constexpr int kConvergeEvery = 50;
// How long the bridge may take to catch up after a restart.
constexpr absl::Duration kConvergeWait = absl::Seconds(60);
// How long a cycle with a fault point armed runs the workload waiting for serve to reach it.
constexpr absl::Duration kFaultPointWait = absl::Seconds(20);

// The number of cycles: `plan.cycles_variable` when set, else its default.
int CycleCount(const CrashRunPlan& plan) {
  int cycles = plan.default_cycles;
  const char* env = std::getenv(plan.cycles_variable);
  if (env != nullptr && (!absl::SimpleAtoi(env, &cycles) || cycles < 1)) {
    ADD_FAILURE() << plan.cycles_variable << " must be a whole number >= 1, got " << env;
    cycles = 1;
  }
  return cycles;
}

// The seed of the run's choices: CREDLEDGER_CRASH_SEED when set, else from the clock.
uint64_t Seed() {
  uint64_t seed = static_cast<uint64_t>(absl::ToUnixNanos(absl::Now()));
  const char* env = std::getenv("CREDLEDGER_CRASH_SEED");
  if (env != nullptr && !absl::SimpleAtoi(env, &seed)) {
    ADD_FAILURE() << "CREDLEDGER_CRASH_SEED must be a whole number, got " << env;
  }
  return seed;
}

// The source Secret at its `version`th rotation (no token-like bytes).
nlohmann::json SourceSecret(int version) {
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", {{"name", kSourceName}}},
          {"type", "Opaque"},
          {"data", {{"access_key", absl::Base64Escape(absl::StrCat("AKIA-crash-", version))}}}};
}

}  // namespace

void PointTally::Count(const std::string& point, const std::string& reached, bool start_up) {
  ASSERT_EQ(reached, point) << "serve did not reach fault point " << point << " within "
                            << kFaultPointWait;
  ++kills;
  if (start_up) ++during_start_up;
}

void CrashWorkloadTest::CatchUpLog() {
  for (const store::RecordedEvent& e : ReadLog(log_.seq)) {
    absl::StatusOr<std::vector<std::string>> changed = log_.credentials.Apply(e);
    ASSERT_TRUE(changed.ok()) << "seq " << e.seq << ": " << changed.status();
    absl::StatusOr<v1::Event> event = store::EventCodec::Default().Decode(e);
    ASSERT_TRUE(event.ok()) << "seq " << e.seq << ": " << event.status();
    log_.seq = e.seq;
    ++log_.event_counts[e.type];
    absl::StatusOr<v1::EventMetadata> metadata = store::EventCodec::DecodeMetadata(e);
    ASSERT_TRUE(metadata.ok()) << "seq " << e.seq << ": " << metadata.status();
    if (!metadata->request_id().empty()) log_.request_ids.insert(metadata->request_id());
    log_.request_id_at[e.seq] = metadata->request_id();
    if (event->has_credential_secret_created()) {
      log_.credential_secret_uids.insert(event->credential_secret_created().secret().uid());
    }
    if (event->has_source_secret_observed()) {
      log_.source_digest = projections::SourceDigestOf(event->source_secret_observed());
    }
    if (event->has_mirror_written()) {
      const v1::MirrorWritten& written = event->mirror_written();
      log_.mirror_uids.insert(written.secret().uid());
      if (written.namespace_() == kMirrorNamespace) {
        log_.mirror_digest = projections::SourceDigestOf(written);
        log_.mirror_uid = written.secret().uid();
      }
    }
  }
}

void CrashWorkloadTest::ExpectLogInvariants() {
  for (const auto& [request_id, seq] : workload_.acknowledged()) {
    if (seq == 0) continue;  // already satisfied: it appended nothing
    const auto at = log_.request_id_at.find(seq);
    EXPECT_TRUE(at != log_.request_id_at.end() && at->second == request_id)
        << "acknowledged command " << request_id << " appended seq " << seq << ", which the log "
        << (at == log_.request_id_at.end() ? "lacks" : "gives another");
  }
  for (int i = 0; i < kTargetCount; ++i) {
    const std::optional<v1::TargetState> state =
        log_.credentials.Get(kLiveNamespace, TargetName(i));
    if (!state.has_value()) continue;
    const v1::CredentialRecord* current = projections::CurrentCredential(*state);
    std::set<std::string> names;
    int at_current = 0;
    for (const v1::CredentialRecord& c : state->credentials()) {
      EXPECT_TRUE(names.insert(c.secret().name()).second)
          << "two credential records name " << c.secret().name();
      if (current != nullptr && c.suffix() == current->suffix()) ++at_current;
    }
    if (current != nullptr) {
      EXPECT_EQ(at_current, 1) << state->DebugString();
    }
  }
}

std::vector<std::string> CrashWorkloadTest::Divergences() {
  std::vector<std::string> problems;
  CatchUpLog();
  for (int i = 0; i < kTargetCount; ++i) {
    const std::string name = TargetName(i);
    const std::optional<v1::TargetState> state = log_.credentials.Get(kLiveNamespace, name);
    std::map<std::string, std::string> recorded;  // Secret name -> uid
    const v1::CredentialRecord* current = nullptr;
    if (state.has_value()) {
      if (state->phase() == v1::TargetState::PHASE_DELETING) {
        problems.push_back(name + ": still being deleted");
      }
      if (state->has_open_attempt()) problems.push_back(name + ": a mint is open");
      if (state->phase() == v1::TargetState::PHASE_ACTIVE) {
        current = projections::CurrentCredential(*state);
        if (!state->revoked() && current == nullptr) {
          problems.push_back(name + ": no current credential");
        }
        if (!state->revoked() && !state->pending_request_value().empty()) {
          problems.push_back(name + ": rotation request not answered");
        }
        if (state->revoked() && state->credentials_size() > 0) {
          problems.push_back(name + ": revoked but credentials remain");
        }
        for (const v1::CredentialRecord& c : state->credentials()) {
          if (c.phase() != v1::CredentialRecord::PHASE_ISSUED) {
            problems.push_back(
                absl::StrCat(name, ": credential ", c.secret().name(), " not issued"));
          }
          recorded[c.secret().name()] = c.secret().uid();
        }
      }
    }
    std::map<std::string, std::string> live;  // Secret name -> uid
    for (const nlohmann::json& secret : CredentialSecrets(name)) {
      const std::string secret_name = StringAt(secret, {"metadata", "name"});
      const std::string uid = StringAt(secret, {"metadata", "uid"});
      live[secret_name] = uid;
      const std::string token = TokenOf(secret);
      if (token.empty()) problems.push_back("Secret " + secret_name + " has no token");
      if (log_.credential_secret_uids.count(uid) == 0) {
        problems.push_back("Secret " + secret_name + " (uid " + uid +
                           ") has no CredentialSecretCreated event");
      }
      if (current != nullptr && secret_name == current->secret().name() && !token.empty()) {
        if (kubebridge::TokenFingerprint(token) != current->token_fingerprint()) {
          problems.push_back("Secret " + secret_name + ": token fingerprint differs");
        } else if (ReviewedUser(token) !=
                   absl::StrCat("system:serviceaccount:", kLiveNamespace, ":solar-agent-", name)) {
          problems.push_back("Secret " + secret_name + ": token does not authenticate");
        }
      }
    }
    if (live != recorded) {
      problems.push_back(absl::StrCat(name, ": live Secrets {",
                                      absl::StrJoin(live, ",", absl::PairFormatter("=")),
                                      "} differ from the log's {",
                                      absl::StrJoin(recorded, ",", absl::PairFormatter("=")), "}"));
    }
  }
  MirrorDivergences(problems);
  return problems;
}

void CrashWorkloadTest::MirrorDivergences(std::vector<std::string>& problems) {
  absl::StatusOr<nlohmann::json> source =
      admin_->Get(kubebridge::SecretResource(kLiveNamespace, kSourceName));
  absl::StatusOr<nlohmann::json> mirror = admin_->Get(kubebridge::SecretResource(
      kMirrorNamespace, absl::StrCat(projections::kMirrorNamePrefix, kIdentity)));
  if (!source.ok() || !mirror.ok()) {
    problems.push_back(absl::StrCat("source or mirror unreadable: ", source.status().ToString(),
                                    " / ", mirror.status().ToString()));
    return;
  }
  if ((*source)["data"] != (*mirror)["data"]) problems.push_back("mirror data is stale");
  const std::string mirror_uid = StringAt(*mirror, {"metadata", "uid"});
  if (mirror_uid != log_.mirror_uid) problems.push_back("mirror is not the one last written");
  if (log_.mirror_digest != log_.source_digest) {
    problems.push_back("the last mirror write is not of the last observed source");
  }
  for (const char* ns : {kLiveNamespace, kMirrorNamespace}) {
    kubebridge::ListOptions options;
    options.label_selector =
        absl::StrCat(kubebridge::kManagedByLabel, "=", kubebridge::kManagedByValue);
    absl::StatusOr<kubebridge::ObjectList> secrets =
        admin_->List(kubebridge::SecretResource(ns), options);
    if (!secrets.ok()) {
      problems.push_back(secrets.status().ToString());
      continue;
    }
    for (const nlohmann::json& secret : secrets->items) {
      const std::string uid = StringAt(secret, {"metadata", "uid"});
      if (log_.credential_secret_uids.count(uid) == 0 && log_.mirror_uids.count(uid) == 0) {
        problems.push_back(absl::StrCat("Secret ", ns, "/", StringAt(secret, {"metadata", "name"}),
                                        " is not explained by the log"));
      }
    }
  }
}

void CrashWorkloadTest::ExpectConvergence(int cycle) {
  const absl::Time give_up = absl::Now() + kConvergeWait;
  std::vector<std::string> problems = Divergences();
  while (!problems.empty() && absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(20));
    problems = Divergences();
  }
  EXPECT_THAT(problems, ::testing::IsEmpty()) << "after cycle " << cycle;
}

void CrashWorkloadTest::ExpectLogVerifies() {
  int64_t min_seq = 0;
  for (const auto& [request_id, seq] : workload_.acknowledged()) min_seq = std::max(min_seq, seq);
  std::vector<std::string> args = {"verify", "--public-key", public_key_.string(), "--min-seq",
                                   absl::StrCat(min_seq)};
  const std::vector<std::string> log_flags = LogFlags();
  args.insert(args.end(), log_flags.begin(), log_flags.end());
  const RunResult run = OfflineCli(std::move(args));
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
}

void CrashWorkloadTest::CreateIdentity() {
  // The mirror's namespace, the source Secret, and a Role letting the actor read it.
  ASSERT_OK(admin_
                ->Create(kubebridge::ResourceRef{"", "v1", "namespaces", "", ""},
                         {{"apiVersion", "v1"},
                          {"kind", "Namespace"},
                          {"metadata", {{"name", kMirrorNamespace}}}})
                .status());
  ASSERT_OK(admin_->Create(kubebridge::SecretResource(kLiveNamespace), SourceSecret(0)).status());
  ASSERT_OK(admin_
                ->Create(kubebridge::RoleResource(kLiveNamespace),
                         SecretReaderRole("read-cloud-keys", kSourceName))
                .status());
  ASSERT_OK(admin_
                ->Create(kubebridge::RoleBindingResource(kLiveNamespace),
                         RoleBindingTo("alice-reads-cloud-keys", "read-cloud-keys", "User",
                                       kIdentityActor))
                .status());
  std::unique_ptr<v1::IdentityService::Stub> stub = v1::IdentityService::NewStub(
      grpc::CreateChannel(serve_address_, grpc::InsecureChannelCredentials()));
  {
    grpc::ClientContext context;
    Prepare(context, kIdentityActor);
    v1::CreateIdentityRequest request;
    request.set_request_id("identity-create");
    request.set_name(kIdentity);
    request.mutable_spec()->mutable_secret_ref()->set_namespace_(kLiveNamespace);
    request.mutable_spec()->mutable_secret_ref()->set_name(kSourceName);
    request.mutable_spec()->mutable_allowed_namespaces()->add_list(kMirrorNamespace);
    v1::IdentityChangeResponse response;
    const grpc::Status status = stub->CreateIdentity(&context, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  absl::StatusOr<v1::OwnerReference> job = CreateJob(*admin_, kMirrorNamespace, "plan");
  ASSERT_OK(job.status());
  grpc::ClientContext context;
  Prepare(context, kIdentityActor);
  v1::BindIdentityRequest request;
  request.set_request_id("identity-bind");
  request.set_identity(kIdentity);
  request.set_namespace_(kMirrorNamespace);
  *request.mutable_owner() = *job;
  v1::IdentityChangeResponse response;
  const grpc::Status status = stub->BindIdentity(&context, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
}

void CrashWorkloadTest::RotateSource(int version) {
  absl::StatusOr<nlohmann::json> live =
      admin_->Get(kubebridge::SecretResource(kLiveNamespace, kSourceName));
  ASSERT_OK(live);
  nlohmann::json next = SourceSecret(version);
  next["metadata"]["resourceVersion"] = (*live)["metadata"]["resourceVersion"];
  ASSERT_OK(admin_->Update(kubebridge::SecretResource(kLiveNamespace, kSourceName), next).status());
}

void CrashWorkloadTest::RunCrashWorkload(const CrashRunPlan& plan) {
  const int cycles = CycleCount(plan);
  const uint64_t seed = Seed();
  SCOPED_TRACE(
      absl::StrCat("CREDLEDGER_CRASH_SEED=", seed, " ", plan.cycles_variable, "=", cycles));
  std::cout << "crash test: seed " << seed << ", " << cycles << " cycles\n";
  std::mt19937_64 rng(seed);
  workload_ = Workload(rng());
  FaultPointRotation rotation(rng());

  const std::filesystem::path private_key = dir_.path() / "signing-key.pem";
  public_key_ = dir_.path() / "signing-key.pub.pem";
  const RunResult keygen = OfflineCli(
      {"keygen", "--private-key", private_key.string(), "--public-key", public_key_.string()});
  ASSERT_EQ(keygen.exit_code, 0) << keygen.err;
  // Frequent checkpoints and snapshots, so that kills also land in their writes; every
  // changed report is appended at once.
  const std::vector<std::string> serve_args = {"--signing-key",         private_key.string(),
                                               "--checkpoint-every",    "25",
                                               "--snapshot-every",      "40",
                                               "--report-min-interval", "0s"};

  StartServe("", serve_args);
  CreateIdentity();
  KillServe();

  int killed_before_ready = 0;
  int source_rotations = 0;
  std::map<std::string, PointTally> points;
  for (int cycle = 1; cycle <= cycles; ++cycle) {
    SCOPED_TRACE(absl::StrCat("cycle ", cycle));
    std::string fault_point;
    std::string armed;  // CREDLEDGER_FAULT_POINTS
    if (cycle % plan.arm_every == 0) {
      fault_point = rotation.Next();
      armed = absl::StrCat(fault_point, ":", 1 + rng() % LastArrival(fault_point));
    }
    const bool before_ready = fault_point.empty() && rng() % 10 == 0;
    SCOPED_TRACE(absl::StrCat("CREDLEDGER_FAULT_POINTS=", armed));
    LaunchServe(armed, serve_args);
    ASSERT_NE(serve_, nullptr);
    if (before_ready) {
      // A kill during start-up (opening, migrating and verifying the log, the first
      // reconciles). Sleeping here chooses the moment; nothing waits for it.
      absl::SleepFor(absl::Milliseconds(static_cast<int64_t>(rng() % 150)));
      ++killed_before_ready;
      KillServe();
      continue;
    }
    if (!AwaitServeReady()) {
      // Killed at the armed point while starting: resuming a mint, a mirror write, a
      // snapshot of the projections catching up.
      ASSERT_FALSE(fault_point.empty()) << "serve ended before it was ready";
      ASSERT_NO_FATAL_FAILURE(points[fault_point].Count(
          fault_point, AwaitServeEnd(absl::Now() + kLiveWait), /*start_up=*/true));
      continue;
    }
    // The log as the restarted serve found it: everything acknowledged so far is there.
    ASSERT_NO_FATAL_FAILURE(CatchUpLog());
    ExpectLogInvariants();

    // Whether the command the last crash cut off was committed, before it is retried.
    const std::optional<WorkloadCommand> cut = workload_.cut();
    const bool cut_was_committed = cut.has_value() && log_.request_ids.count(cut->request_id) > 0;
    // A cycle with a fault point armed always rotates the source, so that the mirror points
    // are reached too.
    const bool rotate_source = rng() % 3 == 0 || !fault_point.empty();
    const absl::Duration kill_after = absl::Milliseconds(static_cast<int64_t>(rng() % 250));
    // With a fault point armed the workload goes on until the point cuts it off.
    const int steps = fault_point.empty() ? 2 : std::numeric_limits<int>::max();
    std::thread client([&] { workload_.Run(serve_address_, steps); });
    if (rotate_source) RotateSource(++source_rotations);
    if (fault_point.empty()) {
      // The kill moment: a random delay from the start of the commands.
      absl::SleepFor(kill_after);
      KillServe();
    } else {
      points[fault_point].Count(fault_point, AwaitServeEnd(absl::Now() + kFaultPointWait),
                                /*start_up=*/false);
    }
    client.join();
    if (HasFatalFailure()) return;

    if (cut.has_value() && workload_.retry_answer().has_value()) {
      // A committed command is answered as a replay of its original answer; one that was
      // not is decided anew.
      const CommandAnswer& retry = *workload_.retry_answer();
      if (cut_was_committed) {
        EXPECT_EQ(retry.code, grpc::StatusCode::OK) << cut->request_id << ": " << retry.message;
        EXPECT_TRUE(retry.replayed) << cut->request_id;
      } else if (retry.code == grpc::StatusCode::OK) {
        EXPECT_FALSE(retry.replayed) << cut->request_id;
      }
    }
    if (cycle % kConvergeEvery == 0 || cycle == cycles) {
      StartServe("", serve_args);
      ExpectConvergence(cycle);
      ExpectLogVerifies();
      KillServe();
    }
    if (HasFatalFailure()) return;
  }
  EXPECT_THAT(workload_.unexpected(), ::testing::IsEmpty());
  if (cycles / plan.arm_every >= static_cast<int>(std::size(kFaultPoints))) {
    EXPECT_EQ(points.size(), std::size(kFaultPoints))
        << "a run of " << cycles << " cycles arms every fault point at least once";
  }

  std::cout << "crash test: " << killed_before_ready << " kills during start-up, "
            << source_rotations << " source rotations; kills at fault points (during start-up):";
  for (const auto& [point, tally] : points) {
    std::cout << " " << point << " " << tally.kills << " (" << tally.during_start_up << ")";
  }
  std::cout << "; commands acknowledged/refused: " << workload_.Summary() << "; events:";
  for (const auto& [type, count] : log_.event_counts) std::cout << " " << type << " " << count;
  std::cout << "\n";

  KeepDatabaseFiles("at the end");
  KeepProcessOutputs();
  ExpectNotFoundAnywhere({std::begin(kJwtMarkers), std::end(kJwtMarkers)});
}

}  // namespace credledger::testing::crash_workload
