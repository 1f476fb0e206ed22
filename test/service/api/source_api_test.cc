// SourceApi on a real SqliteEventStore in a temp dir with a fake verifier: validation naming
// the field, one SourceVerified event per verification in stream source/<namespace>/<name>,
// request-id replay without a second verification, and the home-cluster precondition.
#include "service/api/source_api.h"

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubebridge/model/connection_errors.h"
#include "service/bus/prior_request.h"
#include "store/event_codec.h"
#include "store/sqlite_event_store.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::service {
namespace source_api_test {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;
using testing::StatusIs;

// Records every source it is asked to verify and the cancellation it was handed; answers
// `answer`, or runs `during` first when set.
class FakeVerifier {
 public:
  kubebridge::SourceVerification Verify(const v1::SourceSpec& source,
                                        kubebridge::Cancellation* cancel) {
    std::function<void()> during;
    {
      absl::MutexLock lock(&mu_);
      sources_.push_back(source);
      cancels_.push_back(cancel);
      during = std::move(during_);
      during_ = nullptr;
    }
    if (during) during();
    absl::MutexLock lock(&mu_);
    return answer_;
  }
  void set_answer(kubebridge::SourceVerification answer) {
    absl::MutexLock lock(&mu_);
    answer_ = std::move(answer);
  }
  // Runs `during` inside the next verification, before it answers.
  void set_during(std::function<void()> during) {
    absl::MutexLock lock(&mu_);
    during_ = std::move(during);
  }
  std::vector<v1::SourceSpec> sources() const {
    absl::MutexLock lock(&mu_);
    return sources_;
  }
  std::vector<kubebridge::Cancellation*> cancels() const {
    absl::MutexLock lock(&mu_);
    return cancels_;
  }

 private:
  mutable absl::Mutex mu_;
  kubebridge::SourceVerification answer_ ABSL_GUARDED_BY(mu_) = {
      kubebridge::kReasonVerified, "listed 2 refs", {}, ""};
  std::function<void()> during_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::SourceSpec> sources_ ABSL_GUARDED_BY(mu_);
  std::vector<kubebridge::Cancellation*> cancels_ ABSL_GUARDED_BY(mu_);
};

v1::SourceSpec ParseSpec(const std::string& text) {
  v1::SourceSpec spec;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &spec)) << text;
  return spec;
}

// A Git source over SSH in flux-system with a key and known_hosts from a ConfigMap.
v1::SourceSpec GitSsh() {
  return ParseSpec(R"pb(
    kind: SOURCE_KIND_GIT
    url: "ssh://git@git.example.com:2222/org/repo.git"
    namespace: "flux-system"
    auth {
      type: "sshKey"
      ssh_key {
        secret_name: "deploy-key"
        known_hosts_ref { kind: "ConfigMap" name: "known-hosts" }
      }
    }
  )pb");
}

// A Git source over HTTPS in flux-system without credentials.
v1::SourceSpec GitHttps() {
  return ParseSpec(R"pb(
    kind: SOURCE_KIND_GIT
    url: "https://git.example.com/org/repo.git"
    namespace: "flux-system"
    auth { type: "none" }
  )pb");
}

// A Helm repository without credentials and without a namespace.
v1::SourceSpec HelmNone() {
  return ParseSpec(R"pb(
    kind: SOURCE_KIND_HELM
    url: "https://charts.example.com/stable"
    auth { type: "none" }
  )pb");
}

v1::VerifySourceRequest Request(const std::string& name, const std::string& request_id,
                                const v1::SourceSpec& source) {
  v1::VerifySourceRequest request;
  request.set_name(name);
  request.set_request_id(request_id);
  *request.mutable_source() = source;
  return request;
}

class SourceApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store::SqliteEventStoreOptions options;
    options.path = dir_.path() / "events.db";
    options.clock = &clock_;
    ASSERT_OK_AND_ASSIGN(store_, store::SqliteEventStore::Open(options));
    api_ = MakeApi(/*has_home_cluster=*/true);
  }

  std::unique_ptr<SourceApi> MakeApi(bool has_home_cluster) {
    return std::make_unique<SourceApi>(
        store_.get(),
        [this](const v1::SourceSpec& source, kubebridge::Cancellation* cancel) {
          return verifier_.Verify(source, cancel);
        },
        has_home_cluster);
  }

  std::vector<store::RecordedEvent> AllEvents() {
    absl::StatusOr<std::vector<store::RecordedEvent>> events = store_->ReadAll(0, 1000);
    EXPECT_OK(events.status());
    return events.ok() ? *events : std::vector<store::RecordedEvent>{};
  }

  static v1::SourceVerified Decoded(const store::RecordedEvent& recorded) {
    absl::StatusOr<v1::Event> event = store::EventCodec::Default().Decode(recorded);
    EXPECT_OK(event.status());
    return event.ok() ? event->source_verified() : v1::SourceVerified();
  }

  credledger::testing::TempDir dir_;
  common::FakeClock clock_;
  std::unique_ptr<store::SqliteEventStore> store_;
  FakeVerifier verifier_;
  std::unique_ptr<SourceApi> api_;
};

TEST_F(SourceApiTest, ValidationNamesTheFieldAndNeitherVerifiesNorAppends) {
  struct Case {
    std::string expected;
    std::function<void(v1::VerifySourceRequest&)> change;
  };
  const std::vector<Case> cases = {
      {"request_id: required", [](auto& r) { r.clear_request_id(); }},
      {"request_id: the prefix \"credledger:\"", [](auto& r) { r.set_request_id("credledger:1"); }},
      {"request_id: only printable ASCII", [](auto& r) { r.set_request_id("a b"); }},
      {"name: required", [](auto& r) { r.clear_name(); }},
      {"name: \"Pod_Info\" is not a DNS-1123 label", [](auto& r) { r.set_name("Pod_Info"); }},
      {"source.kind: required (git, helm or oci)",
       [](auto& r) { r.mutable_source()->clear_kind(); }},
      {"source.kind: unknown value 9",
       [](auto& r) { r.mutable_source()->set_kind(static_cast<v1::SourceKind>(9)); }},
      {"source.url: required", [](auto& r) { r.mutable_source()->clear_url(); }},
      {"source.url: 2049 bytes; at most 2048",
       [](auto& r) { r.mutable_source()->set_url("https://e.example/" + std::string(2031, 'a')); }},
      {"source.url: must not contain whitespace or control characters",
       [](auto& r) { r.mutable_source()->set_url("https://e.example/a b"); }},
      {"source.url: must not contain whitespace or control characters",
       [](auto& r) { r.mutable_source()->set_url("https://e.example/a\tb"); }},
      {"source.url: must not contain whitespace or control characters",
       [](auto& r) { r.mutable_source()->set_url("https://e.example/a\x7f"); }},
      {"source.namespace: \"Flux_System\" is not a DNS-1123 label",
       [](auto& r) { r.mutable_source()->set_namespace_("Flux_System"); }},
      {"source.auth.type: required",
       [](auto& r) { r.mutable_source()->mutable_auth()->clear_type(); }},
      {"source.auth.type: only printable ASCII",
       [](auto& r) { r.mutable_source()->mutable_auth()->set_type("ssh key"); }},
      {"source.auth.type: 64 bytes; at most 63",
       [](auto& r) { r.mutable_source()->mutable_auth()->set_type(std::string(64, 'x')); }},
      {"source.auth.basic.secret_name: required",
       [](auto& r) {
         r.mutable_source()->mutable_auth()->set_type("basic");
         r.mutable_source()->mutable_auth()->clear_ssh_key();
         r.mutable_source()->mutable_auth()->mutable_basic();
       }},
      {"source.auth.bearer.secret_name: \"Token\" is not a DNS-1123 subdomain",
       [](auto& r) {
         r.mutable_source()->mutable_auth()->set_type("bearer");
         r.mutable_source()->mutable_auth()->clear_ssh_key();
         r.mutable_source()->mutable_auth()->mutable_bearer()->set_secret_name("Token");
       }},
      {"source.auth.ssh_key.secret_name: required",
       [](auto& r) { r.mutable_source()->mutable_auth()->mutable_ssh_key()->clear_secret_name(); }},
      {"source.auth.ssh_key.known_hosts_ref.kind: \"Pod\" is not a kind",
       [](auto& r) {
         r.mutable_source()->mutable_auth()->mutable_ssh_key()->mutable_known_hosts_ref()->set_kind(
             "Pod");
       }},
      {"source.auth.ssh_key.known_hosts_ref.name: required",
       [](auto& r) {
         r.mutable_source()
             ->mutable_auth()
             ->mutable_ssh_key()
             ->mutable_known_hosts_ref()
             ->clear_name();
       }},
      {"source.auth.ssh_key.known_hosts_ref.key: \"hosts/known\" is not a data key",
       [](auto& r) {
         r.mutable_source()->mutable_auth()->mutable_ssh_key()->mutable_known_hosts_ref()->set_key(
             "hosts/known");
       }},
      {"source.tls.ca_public_cert_ref.kind: \"secret\" is not a kind",
       [](auto& r) {
         *r.mutable_source() = GitHttps();
         r.mutable_source()->mutable_tls()->mutable_ca_public_cert_ref()->set_kind("secret");
         r.mutable_source()->mutable_tls()->mutable_ca_public_cert_ref()->set_name("ca");
       }},
      {"source.tls.ca_public_cert_ref.key: \"..data\" is not a data key",
       [](auto& r) {
         *r.mutable_source() = GitHttps();
         v1::ObjectKeyRef& ca = *r.mutable_source()->mutable_tls()->mutable_ca_public_cert_ref();
         ca.set_kind("Secret");
         ca.set_name("ca");
         ca.set_key("..data");
       }},
      {"source.tls.ca_public_cert_ref.key: 254 bytes; a data key has at most 253",
       [](auto& r) {
         *r.mutable_source() = GitHttps();
         v1::ObjectKeyRef& ca = *r.mutable_source()->mutable_tls()->mutable_ca_public_cert_ref();
         ca.set_kind("ConfigMap");
         ca.set_name("ca");
         ca.set_key(std::string(254, 'k'));
       }},
  };
  for (const Case& c : cases) {
    v1::VerifySourceRequest request = Request("podinfo", "r1", GitSsh());
    c.change(request);
    EXPECT_THAT(api_->VerifySource(request, "alice"),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.expected)))
        << c.expected;
  }
  EXPECT_THAT(api_->VerifySource(Request("podinfo", "r1", GitSsh()), "bad actor"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("credledger-actor")));
  EXPECT_THAT(verifier_.sources(), IsEmpty());
  EXPECT_EQ(store_->HeadSeq(), 0);
}

TEST_F(SourceApiTest, ValidSpecsAtTheLimitsAreAccepted) {
  v1::SourceSpec longest = HelmNone();
  longest.set_url("https://e.example/" + std::string(2030, 'a'));
  ASSERT_EQ(longest.url().size(), kMaxSourceUrlBytes);
  v1::SourceSpec keyed = GitSsh();
  keyed.mutable_auth()->mutable_ssh_key()->mutable_known_hosts_ref()->set_key("known_hosts.v-2");
  v1::SourceSpec with_ca = GitHttps();
  with_ca.mutable_tls()->mutable_ca_public_cert_ref()->set_kind("Secret");
  with_ca.mutable_tls()->mutable_ca_public_cert_ref()->set_name("corp.ca");
  int n = 0;
  for (const v1::SourceSpec& source : {longest, keyed, with_ca}) {
    ASSERT_OK(
        api_->VerifySource(Request("podinfo", absl::StrCat("ok-", n++), source), "alice").status());
  }
  EXPECT_THAT(verifier_.sources(), SizeIs(3));
}

TEST_F(SourceApiTest, AUrlWithAPasswordIsRefusedWithoutEchoingIt) {
  for (const char* url :
       {"https://user:hunter2@git.example.com/org/repo.git",
        "https://me@corp.example:hunter2@git.example.com/repo",
        "https://user:hunter2@charts.example.com", "oci://robot:hunter2@registry.example.com/app",
        "ssh://git:hunter2@git.example.com/org/repo.git",
        "git:hunter2@git.example.com:org/repo.git", "user:@git.example.com/x",
        // Not a scheme before "://": still scp-like.
        "git:hunter2@git.example.com:a://b"}) {
    v1::SourceSpec source = HelmNone();
    source.set_url(url);
    absl::StatusOr<v1::VerifySourceResponse> response =
        api_->VerifySource(Request("podinfo", "r1", source), "alice");
    EXPECT_THAT(response, StatusIs(absl::StatusCode::kInvalidArgument)) << url;
    EXPECT_EQ(response.status().message(),
              "source.url: must not contain a password; put credentials in auth")
        << url;
  }
  EXPECT_THAT(verifier_.sources(), IsEmpty());
  EXPECT_EQ(store_->HeadSeq(), 0);
}

TEST_F(SourceApiTest, UserNamesScpLikeAddressesAndColonsOutsideTheUserinfoAreNoPassword) {
  for (const char* url : {"git@github.com:org/repo.git", "ssh://git@git.example.com:2222/repo",
                          "https://token-user@git.example.com/org/repo.git",
                          "https://[::1]:8443/charts", "https://git.example.com/org/re@po:1",
                          "oci://registry.example.com:5000/app", "git.example.com:org/repo@v1"}) {
    EXPECT_TRUE(ValidateSourceUrl(url).ok()) << url;
  }
}

// Stricter than the hand-written split, which let a malformed URL through to be recorded as
// a failed verification: a URL libcurl cannot read is refused, unquoted, since where its
// userinfo ends (and so whether it holds a password) is unknown.
TEST_F(SourceApiTest, AUrlLibcurlCannotReadIsRefusedWithoutEchoingIt) {
  EXPECT_THAT(ValidateSourceUrl("https://robot@git.example.com:99999/org/repo.git"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "source.url: has an invalid port (a port is a number 1-65535)"));
  EXPECT_THAT(ValidateSourceUrl("oci://robot@[registry]/app"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "source.url: has no IPv6 address in its brackets"));
  EXPECT_THAT(ValidateSourceUrl("https://robot@:443/charts"),
              StatusIs(absl::StatusCode::kInvalidArgument, "source.url: has no host"));
}

// A URL that loses its user name is recorded as libcurl writes it back: a bare host gets "/"
// as its path; a URL without userinfo is recorded as given.
TEST_F(SourceApiTest, TheRecordedUrlWithoutItsUserIsTheOneLibcurlWrites) {
  EXPECT_EQ(RecordedSourceUrl("HTTPS://ghp_tok3n@charts.example.com"),
            "https://charts.example.com/");
  EXPECT_EQ(RecordedSourceUrl("HTTPS://charts.example.com"), "HTTPS://charts.example.com");
}

TEST_F(SourceApiTest, TheRecordedUrlDropsAnHttpsUserNameAndKeepsAnSshLogin) {
  EXPECT_EQ(RecordedSourceUrl("https://ghp_tok3n@github.com/org/repo.git"),
            "https://github.com/org/repo.git");
  EXPECT_EQ(RecordedSourceUrl("oci://robot@registry.example.com:5000/app"),
            "oci://registry.example.com:5000/app");
  EXPECT_EQ(RecordedSourceUrl("https://charts.example.com/a@b"), "https://charts.example.com/a@b");
  EXPECT_EQ(RecordedSourceUrl("ssh://git@git.example.com/repo"), "ssh://git@git.example.com/repo");
  EXPECT_EQ(RecordedSourceUrl("SSH://git@git.example.com/repo"), "SSH://git@git.example.com/repo");
  EXPECT_EQ(RecordedSourceUrl("git+ssh://git@h.example/r"), "git+ssh://git@h.example/r");
  EXPECT_EQ(RecordedSourceUrl("git@github.com:org/repo.git"), "git@github.com:org/repo.git");
}

TEST_F(SourceApiTest, EachReasonIsRecordedAsOneSourceVerifiedInTheSourcesStream) {
  const std::vector<kubebridge::SourceVerification> answers = {
      {kubebridge::kReasonVerified, "listed 3 refs", {"first note"}, "SHA256:abcDEF0123"},
      {kubebridge::kReasonVerifyFailed, "ssh: host key mismatch", {}, "SHA256:zzz"},
      {kubebridge::kReasonUnsupported, "auth type \"oidc\" is not supported", {}, ""},
  };
  v1::SourceSpec source = GitHttps();
  source.mutable_tls()->set_insecure_skip_verify(true);
  int64_t version = 0;
  for (const kubebridge::SourceVerification& answer : answers) {
    verifier_.set_answer(answer);
    const std::string request_id = absl::StrCat("r-", answer.reason);
    ASSERT_OK_AND_ASSIGN(v1::VerifySourceResponse response,
                         api_->VerifySource(Request("podinfo", request_id, source), "alice"));
    EXPECT_FALSE(response.replayed());
    EXPECT_EQ(response.retryable(), answer.reason == "VerifyFailed") << answer.reason;
    EXPECT_EQ(response.seq(), store_->HeadSeq());

    v1::SourceVerified expected;
    expected.set_kind(v1::SOURCE_KIND_GIT);
    expected.set_url("https://git.example.com/org/repo.git");
    expected.set_auth_type("none");
    expected.set_reason(answer.reason);
    expected.set_message(answer.message);
    for (const std::string& note : answer.notes) expected.add_notes(note);
    expected.set_host_key_fingerprint(answer.host_key_fingerprint);
    expected.set_insecure_skip_verify(true);
    EXPECT_TRUE(MessageDifferencer::Equals(response.result(), expected))
        << response.result().DebugString();

    const std::vector<store::RecordedEvent> events = AllEvents();
    ASSERT_THAT(events, SizeIs(version + 1));
    const store::RecordedEvent& last = events.back();
    EXPECT_EQ(last.seq, response.seq());
    EXPECT_EQ(last.stream, "source/flux-system/podinfo");
    EXPECT_EQ(last.stream_version, version++);
    EXPECT_EQ(last.type, "credledger.v1.SourceVerified");
    EXPECT_TRUE(MessageDifferencer::Equals(Decoded(last), expected)) << answer.reason;
    ASSERT_OK_AND_ASSIGN(v1::EventMetadata metadata, store::EventCodec::DecodeMetadata(last));
    EXPECT_EQ(metadata.actor(), "alice");
    EXPECT_EQ(metadata.request_id(), request_id);
    EXPECT_EQ(metadata.command(), "VerifySource");
  }
  // The verifier got the source as requested, once per call.
  ASSERT_THAT(verifier_.sources(), SizeIs(3));
  EXPECT_TRUE(MessageDifferencer::Equals(verifier_.sources()[0], source));
}

TEST_F(SourceApiTest, AnHttpsUserNameReachesTheVerifierButNeverTheLog) {
  v1::SourceSpec source = HelmNone();
  source.set_url("https://ghp_s3cr3tT0ken@charts.example.com/stable");
  ASSERT_OK_AND_ASSIGN(v1::VerifySourceResponse response,
                       api_->VerifySource(Request("charts", "r1", source), ""));
  EXPECT_EQ(response.result().url(), "https://charts.example.com/stable");
  ASSERT_THAT(verifier_.sources(), SizeIs(1));
  EXPECT_EQ(verifier_.sources()[0].url(), source.url());
  const std::vector<store::RecordedEvent> events = AllEvents();
  ASSERT_THAT(events, SizeIs(1));
  EXPECT_THAT(events[0].payload, Not(HasSubstr("ghp_s3cr3tT0ken")));
  EXPECT_THAT(events[0].metadata, Not(HasSubstr("ghp_s3cr3tT0ken")));
  ASSERT_OK_AND_ASSIGN(v1::EventMetadata metadata, store::EventCodec::DecodeMetadata(events[0]));
  EXPECT_EQ(metadata.actor(), "anonymous");
}

TEST_F(SourceApiTest, ASourceWithoutNamespaceIsVerifiedAndRecordedInDefault) {
  ASSERT_OK_AND_ASSIGN(v1::VerifySourceResponse response,
                       api_->VerifySource(Request("charts", "r1", HelmNone()), "alice"));
  ASSERT_THAT(verifier_.sources(), SizeIs(1));
  EXPECT_EQ(verifier_.sources()[0].namespace_(), "default");
  const std::vector<store::RecordedEvent> events = AllEvents();
  ASSERT_THAT(events, SizeIs(1));
  EXPECT_EQ(events[0].stream, "source/default/charts");
  EXPECT_EQ(response.result().auth_type(), "none");
  EXPECT_EQ(response.result().kind(), v1::SOURCE_KIND_HELM);
}

TEST_F(SourceApiTest, TheCallersCancellationReachesTheVerifier) {
  kubebridge::Cancellation cancel;
  ASSERT_OK(api_->VerifySource(Request("charts", "r1", HelmNone()), "alice", &cancel).status());
  ASSERT_OK(api_->VerifySource(Request("charts", "r2", HelmNone()), "alice").status());
  EXPECT_THAT(verifier_.cancels(), ::testing::ElementsAre(&cancel, nullptr));
}

TEST_F(SourceApiTest, ARepeatedRequestIdReturnsTheOriginalAnswerWithoutVerifyingOrAppending) {
  verifier_.set_answer({kubebridge::kReasonVerifyFailed, "connection refused", {}, ""});
  ASSERT_OK_AND_ASSIGN(v1::VerifySourceResponse first,
                       api_->VerifySource(Request("podinfo", "r1", GitSsh()), "alice"));
  verifier_.set_answer({kubebridge::kReasonVerified, "listed 1 ref", {}, ""});
  const int64_t head = store_->HeadSeq();

  ASSERT_OK_AND_ASSIGN(v1::VerifySourceResponse again,
                       api_->VerifySource(Request("podinfo", "r1", GitSsh()), "bob"));
  EXPECT_TRUE(again.replayed());
  EXPECT_EQ(again.seq(), first.seq());
  EXPECT_TRUE(again.retryable());
  EXPECT_TRUE(MessageDifferencer::Equals(again.result(), first.result()));
  // After a restart of the api the log still answers.
  ASSERT_OK_AND_ASSIGN(v1::VerifySourceResponse restarted,
                       MakeApi(true)->VerifySource(Request("podinfo", "r1", GitSsh()), "alice"));
  EXPECT_TRUE(restarted.replayed());
  EXPECT_EQ(restarted.result().reason(), "VerifyFailed");

  EXPECT_THAT(verifier_.sources(), SizeIs(1));
  EXPECT_EQ(store_->HeadSeq(), head);
}

TEST_F(SourceApiTest, ARequestIdUsedForAnotherSourceOrCommandIsRefused) {
  ASSERT_OK(api_->VerifySource(Request("podinfo", "r1", GitSsh()), "alice").status());
  EXPECT_THAT(api_->VerifySource(Request("other", "r1", GitSsh()), "alice"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("request_id \"r1\" was already used for VerifySource on "
                                 "source/flux-system/podinfo")));

  v1::Event configured;
  configured.mutable_service_configured();
  ASSERT_OK_AND_ASSIGN(store::NewEvent encoded,
                       store::EventCodec::Default().Encode(
                           configured, CommandMetadata("alice", "r2", "", "ConfigureService")));
  ASSERT_OK(
      store_->Append({"r2", {{"service", store::ExpectedVersion::Any(), {encoded}}}}).status());
  EXPECT_THAT(api_->VerifySource(Request("podinfo", "r2", GitSsh()), "alice"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("was already used for ConfigureService")));
  EXPECT_THAT(verifier_.sources(), SizeIs(1));
  EXPECT_EQ(store_->HeadSeq(), 2);
}

TEST_F(SourceApiTest, ARequestIdReusedWithAnotherSourceSpecIsRefusedWithoutVerifying) {
  ASSERT_OK(api_->VerifySource(Request("podinfo", "r1", GitSsh()), "alice").status());
  v1::SourceSpec moved = GitSsh();
  moved.set_url(absl::StrCat(moved.url(), "-moved"));
  EXPECT_THAT(api_->VerifySource(Request("podinfo", "r1", moved), "alice"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("request_id \"r1\" was already used for a VerifySource on "
                                 "source/flux-system/podinfo whose other fields differ")));
  EXPECT_THAT(verifier_.sources(), SizeIs(1));
  EXPECT_EQ(store_->HeadSeq(), 1);
}

TEST_F(SourceApiTest, WhenAConcurrentCallWithTheSameRequestIdAppendedFirstItsEventIsTheAnswer) {
  // The nested call runs while the outer one is verifying, so it appends first.
  absl::StatusOr<v1::VerifySourceResponse> nested;
  verifier_.set_during([&] {
    verifier_.set_answer({kubebridge::kReasonVerified, "nested", {}, ""});
    nested = api_->VerifySource(Request("podinfo", "r1", GitSsh()), "alice");
    verifier_.set_answer({kubebridge::kReasonVerifyFailed, "outer", {}, ""});
  });
  ASSERT_OK_AND_ASSIGN(v1::VerifySourceResponse outer,
                       api_->VerifySource(Request("podinfo", "r1", GitSsh()), "alice"));
  ASSERT_OK(nested.status());
  EXPECT_FALSE(nested->replayed());
  EXPECT_TRUE(outer.replayed());
  EXPECT_EQ(outer.seq(), nested->seq());
  EXPECT_EQ(outer.result().message(), "nested");
  EXPECT_THAT(AllEvents(), SizeIs(1));
}

TEST_F(SourceApiTest, AReferenceWithoutAHomeClusterIsAFailedPreconditionNamingTheField) {
  const std::unique_ptr<SourceApi> homeless = MakeApi(/*has_home_cluster=*/false);
  v1::SourceSpec basic = HelmNone();
  basic.mutable_auth()->set_type("basic");
  basic.mutable_auth()->mutable_basic()->set_secret_name("helm-creds");
  v1::SourceSpec ca_only = HelmNone();
  ca_only.mutable_tls()->mutable_ca_public_cert_ref()->set_kind("ConfigMap");
  ca_only.mutable_tls()->mutable_ca_public_cert_ref()->set_name("corp-ca");
  const std::vector<std::pair<v1::SourceSpec, std::string>> cases = {
      {basic, "source.auth.basic.secret_name: Secret \"default/helm-creds\""},
      {GitSsh(), "source.auth.ssh_key.secret_name: Secret \"flux-system/deploy-key\""},
      {ca_only, "source.tls.ca_public_cert_ref: ConfigMap \"default/corp-ca\""},
  };
  for (const auto& [source, expected] : cases) {
    EXPECT_THAT(homeless->VerifySource(Request("s", "r1", source), "alice"),
                StatusIs(absl::StatusCode::kFailedPrecondition,
                         AllOf(HasSubstr(expected), HasSubstr("no home cluster connection"))))
        << expected;
  }
  EXPECT_THAT(verifier_.sources(), IsEmpty());
  EXPECT_EQ(store_->HeadSeq(), 0);
  // Without references there is nothing to read from the home cluster.
  ASSERT_OK(homeless->VerifySource(Request("s", "r1", HelmNone()), "alice").status());
  EXPECT_THAT(verifier_.sources(), SizeIs(1));
}

TEST_F(SourceApiTest, AnUnknownAuthTypeIsAcceptedAndRecordedAsTheVerifierClassifiesIt) {
  v1::SourceSpec oidc = HelmNone();
  oidc.mutable_auth()->set_type("oidc");
  verifier_.set_answer({kubebridge::kReasonUnsupported, "auth type \"oidc\"", {}, ""});
  ASSERT_OK_AND_ASSIGN(v1::VerifySourceResponse response,
                       api_->VerifySource(Request("charts", "r1", oidc), "alice"));
  EXPECT_EQ(response.result().auth_type(), "oidc");
  EXPECT_EQ(response.result().reason(), "Unsupported");
  EXPECT_FALSE(response.retryable());
}

// Regression: a block that the type does not use was accepted and silently ignored
// (`auth: {type: none, basic: {...}}`), and a known type without its block reached the
// verifier.
TEST_F(SourceApiTest, AuthBlocksMustFitTheAuthType) {
  const auto with = [](const std::string& type, bool basic, bool bearer, bool ssh_key) {
    v1::SourceSpec source = HelmNone();
    source.mutable_auth()->set_type(type);
    if (basic) source.mutable_auth()->mutable_basic()->set_secret_name("creds");
    if (bearer) source.mutable_auth()->mutable_bearer()->set_secret_name("token");
    if (ssh_key) {
      source.mutable_auth()->mutable_ssh_key()->set_secret_name("key");
      source.mutable_auth()->mutable_ssh_key()->mutable_known_hosts_ref()->set_kind("ConfigMap");
      source.mutable_auth()->mutable_ssh_key()->mutable_known_hosts_ref()->set_name("hosts");
    }
    return source;
  };
  const std::vector<std::pair<v1::SourceSpec, std::string>> cases = {
      {with("none", true, false, false),
       "source.auth.basic: only for auth type basic (type is none)"},
      {with("sshKey", true, false, true),
       "source.auth.basic: only for auth type basic (type is sshKey)"},
      {with("bearer", true, true, false),
       "source.auth.basic: only for auth type basic (type is bearer)"},
      {with("basic", true, false, true),
       "source.auth.ssh_key: only for auth type sshKey (type is basic)"},
      {with("none", false, false, true),
       "source.auth.ssh_key: only for auth type sshKey (type is none)"},
      {with("basic", false, false, false), "source.auth.basic: required for auth type basic"},
      {with("bearer", false, false, false), "source.auth.bearer: required for auth type bearer"},
      {with("sshKey", false, false, false),
       "source.auth.ssh_key: required for auth type sshKey"},
  };
  for (const auto& [source, expected] : cases) {
    absl::StatusOr<v1::VerifySourceResponse> response =
        api_->VerifySource(Request("charts", "r1", source), "alice");
    EXPECT_THAT(response, StatusIs(absl::StatusCode::kInvalidArgument)) << expected;
    EXPECT_EQ(response.status().message(), expected);
  }
  EXPECT_THAT(verifier_.sources(), IsEmpty());
  EXPECT_EQ(store_->HeadSeq(), 0);
  // An unknown type may carry any block, as before: it is recorded as Unsupported.
  for (const auto& [id, source] :
       {std::pair("r2", with("SSHKey", false, false, true)),
        std::pair("r3", with("oidc", true, true, false))}) {
    ASSERT_OK(api_->VerifySource(Request("charts", id, source), "alice").status());
  }
  EXPECT_THAT(verifier_.sources(), SizeIs(2));
}

// Regression: `https://h/charts?token=QSECRET-1` was accepted and recorded whole in
// SourceVerified, and a query can carry a credential.
TEST_F(SourceApiTest, AUrlWithAQueryOrFragmentIsRefusedWithoutEchoingIt) {
  for (const char* url : {"https://h.example/charts?token=QSECRET-1",
                          "https://h.example/charts#QSECRET-1", "https://h.example?QSECRET-1",
                          "oci://registry.example/app?QSECRET-1",
                          "git@git.example.com:org/repo.git?QSECRET-1"}) {
    v1::SourceSpec source = HelmNone();
    source.set_url(url);
    absl::StatusOr<v1::VerifySourceResponse> response =
        api_->VerifySource(Request("charts", "r1", source), "alice");
    EXPECT_THAT(response, StatusIs(absl::StatusCode::kInvalidArgument,
                                   AllOf(HasSubstr("source.url: must not contain a query"),
                                         Not(HasSubstr("QSECRET")))))
        << url;
  }
  EXPECT_THAT(verifier_.sources(), IsEmpty());
  EXPECT_EQ(store_->HeadSeq(), 0);
}

// Regression: a right-to-left override and other non-ASCII characters were recorded and
// printed raw ("x\u202egpj.exe" shows as "xexe.jpg").
TEST_F(SourceApiTest, ANonAsciiUrlIsRefused) {
  for (const char* url :
       {"https://h.example/x\xe2\x80\xaegpj.exe", "https://\xc3\xa9.example/c"}) {
    v1::SourceSpec source = HelmNone();
    source.set_url(url);
    EXPECT_THAT(api_->VerifySource(Request("charts", "r1", source), "alice"),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("source.url: must be ASCII: write an international host name "
                                   "in punycode")))
        << url;
  }
  EXPECT_THAT(verifier_.sources(), IsEmpty());
  EXPECT_EQ(store_->HeadSeq(), 0);
}

// Regression: `source verify ssh://... --insecure-skip-tls-verify` was accepted and printed
// "tls: server certificate not verified", though SSH has no TLS.
TEST_F(SourceApiTest, TlsSettingsWithAnSshUrlAreRefusedNamingTheField) {
  v1::SourceSpec insecure = GitSsh();
  insecure.mutable_tls()->set_insecure_skip_verify(true);
  v1::SourceSpec scp_with_ca = GitSsh();
  scp_with_ca.set_url("git@git.example.com:org/repo.git");
  scp_with_ca.mutable_tls()->mutable_ca_public_cert_ref()->set_kind("ConfigMap");
  scp_with_ca.mutable_tls()->mutable_ca_public_cert_ref()->set_name("corp-ca");
  v1::SourceSpec git_ssh = insecure;
  git_ssh.set_url("git+ssh://git@git.example.com/org/repo.git");
  const std::vector<std::pair<v1::SourceSpec, std::string>> cases = {
      {insecure, "source.tls.insecure_skip_verify: only for https:// and oci:// URLs"},
      {scp_with_ca, "source.tls.ca_public_cert_ref: only for https:// and oci:// URLs"},
      {git_ssh, "source.tls.insecure_skip_verify: only for https:// and oci:// URLs"},
  };
  for (const auto& [source, expected] : cases) {
    EXPECT_THAT(api_->VerifySource(Request("podinfo", "r1", source), "alice"),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         AllOf(HasSubstr(expected), HasSubstr("SSH"))))
        << expected;
  }
  EXPECT_THAT(verifier_.sources(), IsEmpty());
  EXPECT_EQ(store_->HeadSeq(), 0);
  // An empty tls block is no setting.
  v1::SourceSpec empty_tls = GitSsh();
  empty_tls.mutable_tls();
  ASSERT_OK(api_->VerifySource(Request("podinfo", "r2", empty_tls), "alice").status());
}

// Regression: `source verify --namespace default` and the same request without --namespace
// were different requests ("other fields differ"), though the namespace defaults to
// "default": the digest was taken before the default was applied.
TEST_F(SourceApiTest, ARequestThatSpellsOutADefaultReplaysOneThatLeftItOut) {
  v1::SourceSpec implicit = HelmNone();
  implicit.mutable_tls();  // an empty block
  implicit.mutable_tls()->mutable_ca_public_cert_ref()->set_kind("ConfigMap");
  implicit.mutable_tls()->mutable_ca_public_cert_ref()->set_name("corp-ca");
  v1::SourceSpec spelled = implicit;
  spelled.set_namespace_("default");
  spelled.mutable_tls()->mutable_ca_public_cert_ref()->set_key("ca.crt");
  ASSERT_OK_AND_ASSIGN(v1::VerifySourceResponse first,
                       api_->VerifySource(Request("charts", "r1", implicit), "alice"));
  ASSERT_OK_AND_ASSIGN(v1::VerifySourceResponse again,
                       api_->VerifySource(Request("charts", "r1", spelled), "alice"));
  EXPECT_TRUE(again.replayed());
  EXPECT_EQ(again.seq(), first.seq());

  v1::SourceSpec no_key = GitSsh();
  v1::SourceSpec with_key = GitSsh();
  with_key.mutable_auth()->mutable_ssh_key()->mutable_known_hosts_ref()->set_key("known_hosts");
  with_key.mutable_tls();  // an empty block is no setting
  ASSERT_OK(api_->VerifySource(Request("podinfo", "r2", no_key), "alice").status());
  ASSERT_OK_AND_ASSIGN(v1::VerifySourceResponse replayed,
                       api_->VerifySource(Request("podinfo", "r2", with_key), "alice"));
  EXPECT_TRUE(replayed.replayed());

  // The verifier got the sources with their defaults spelled out.
  ASSERT_THAT(verifier_.sources(), SizeIs(2));
  EXPECT_EQ(verifier_.sources()[0].namespace_(), "default");
  EXPECT_EQ(verifier_.sources()[0].tls().ca_public_cert_ref().key(), "ca.crt");
  EXPECT_EQ(verifier_.sources()[1].auth().ssh_key().known_hosts_ref().key(), "known_hosts");
  EXPECT_EQ(store_->HeadSeq(), 2);

  // A value that differs from the default is still another request.
  v1::SourceSpec other_key = with_key;
  other_key.mutable_auth()->mutable_ssh_key()->mutable_known_hosts_ref()->set_key("hosts");
  EXPECT_THAT(api_->VerifySource(Request("podinfo", "r2", other_key), "alice"),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("other fields differ")));
}

// Regression: refused data keys were echoed raw, control characters included.
TEST_F(SourceApiTest, ARefusedDataKeyIsEchoedEscaped) {
  v1::SourceSpec source = GitSsh();
  source.mutable_auth()->mutable_ssh_key()->mutable_known_hosts_ref()->set_key("a\x1b[31m");
  EXPECT_THAT(api_->VerifySource(Request("podinfo", "r1", source), "alice"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("known_hosts_ref.key: \"a\\x1b[31m\" is not a data key")));
}

}  // namespace source_api_test
}  // namespace credledger::service
