// Who the caller is: certificate identity, declared name on local connections, anonymous
// otherwise (docs/api.md, "Caller identity"; service/grpc/auth/caller_identity.h).
#include "service/grpc/auth/caller_identity.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/status_matchers.h"

namespace credledger::service {
namespace caller_identity_test {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::StatusIs;

TEST(IsLocalPeerTest, LoopbackAndUnixPeersAreLocal) {
  for (const char* peer : {"ipv4:127.0.0.1:50000", "ipv4:127.3.2.1:1", "ipv6:[::1]:50000",
                           "ipv6:%5B::1%5D:50000", "ipv6:[::ffff:127.0.0.1]:2",
                           "unix:/run/credledger.sock", "unix:", "unix-abstract:credledger"}) {
    EXPECT_TRUE(IsLocalPeer(peer)) << peer;
  }
}

TEST(IsLocalPeerTest, NetworkPeersAreNot) {
  for (const char* peer :
       {"ipv4:10.0.0.7:50000", "ipv4:128.0.0.1:1", "ipv4:1.127.0.0:1", "ipv6:[2001:db8::1]:50000",
        "ipv6:%5B::2%5D:1", "ipv6:[::ffff:10.0.0.1]:2", "", "127.0.0.1:5"}) {
    EXPECT_FALSE(IsLocalPeer(peer)) << peer;
  }
}

CallerEvidence Certified(std::vector<std::string> uris, std::string subject) {
  CallerEvidence evidence;
  evidence.certificate_verified = true;
  evidence.uri_sans = std::move(uris);
  evidence.subject = std::move(subject);
  evidence.peer = "ipv4:10.0.0.7:50000";
  return evidence;
}

TEST(ResolveCallerTest, CertificateNamesTheCallerByFirstUriSanElseSubject) {
  ASSERT_OK_AND_ASSIGN(Caller by_uri, ResolveCaller(Certified(
                                          {"spiffe://corp/ops", "spiffe://corp/other"}, "CN=ops")));
  EXPECT_EQ(by_uri.identity, "spiffe://corp/ops");
  EXPECT_EQ(by_uri.authentication, kAuthCertificate);
  ASSERT_OK_AND_ASSIGN(Caller by_subject, ResolveCaller(Certified({}, "CN=ops,O=platform")));
  EXPECT_EQ(by_subject.identity, "CN=ops,O=platform");
  EXPECT_THAT(ResolveCaller(Certified({}, "")),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("neither a URI SAN")));
}

TEST(ResolveCallerTest, DeclaredNameMustMatchTheCertificate) {
  CallerEvidence evidence = Certified({"spiffe://corp/ops"}, "CN=ops");
  evidence.declared = "spiffe://corp/ops";
  EXPECT_OK(ResolveCaller(evidence));
  evidence.declared = "anonymous";  // the same as declaring nothing
  EXPECT_OK(ResolveCaller(evidence));
  evidence.declared = "admin";
  EXPECT_THAT(ResolveCaller(evidence),
              StatusIs(absl::StatusCode::kUnauthenticated,
                       AllOf(HasSubstr("\"admin\" differs from the client certificate's "
                                       "identity \"spiffe://corp/ops\""),
                             HasSubstr("credledger-actor"))));
}

TEST(DeclaredNameTest, NothingEmptyAndAnonymousDeclareNoName) {
  CallerEvidence evidence;
  EXPECT_EQ(DeclaredName(evidence), "");
  evidence.declared = "";
  EXPECT_EQ(DeclaredName(evidence), "");
  evidence.declared = "anonymous";
  EXPECT_EQ(DeclaredName(evidence), "");
  evidence.declared = "admin";
  EXPECT_EQ(DeclaredName(evidence), "admin");
}

TEST(CertifiedCallerTest, ARefusedCallerIsKnownByAValidCertificateOnly) {
  CallerEvidence impersonating = Certified({"spiffe://corp/ops"}, "CN=ops");
  impersonating.declared = "admin";
  const std::optional<Caller> known = CertifiedCaller(impersonating);
  ASSERT_TRUE(known.has_value());
  EXPECT_EQ(known->identity, "spiffe://corp/ops");
  EXPECT_EQ(known->authentication, kAuthCertificate);

  EXPECT_EQ(CertifiedCaller(Certified({}, "")), std::nullopt);
  EXPECT_EQ(CertifiedCaller(Certified({}, "CN=Alice Smith")), std::nullopt);
  EXPECT_EQ(CertifiedCaller(Certified({"credledger"}, "")), std::nullopt);
  CallerEvidence declared_only;
  declared_only.peer = "ipv4:10.0.0.7:50000";
  declared_only.declared = "admin";
  EXPECT_EQ(CertifiedCaller(declared_only), std::nullopt);
}

TEST(ResolveCallerTest, CertificateIdentityMustBeAValidActor) {
  EXPECT_THAT(
      ResolveCaller(Certified({}, "CN=Alice Smith")),
      StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("client certificate identity")));
  EXPECT_THAT(ResolveCaller(Certified({"credledger"}, "")),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("reserved")));
}

TEST(ResolveCallerTest, LocalPeersMayDeclareAName) {
  CallerEvidence evidence;
  evidence.peer = "ipv4:127.0.0.1:50000";
  ASSERT_OK_AND_ASSIGN(Caller nobody, ResolveCaller(evidence));
  EXPECT_EQ(nobody.identity, "anonymous");
  EXPECT_EQ(nobody.authentication, kAuthAnonymous);
  evidence.declared = "alice";
  ASSERT_OK_AND_ASSIGN(Caller alice, ResolveCaller(evidence));
  EXPECT_EQ(alice.identity, "alice");
  EXPECT_EQ(alice.authentication, kAuthDeclared);
  evidence.declared = "credledger";
  EXPECT_THAT(ResolveCaller(evidence),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("reserved")));
  evidence.declared = "two words";
  EXPECT_THAT(ResolveCaller(evidence), StatusIs(absl::StatusCode::kUnauthenticated));
}

TEST(ResolveCallerTest, DeclaredNamesAreRecordedAsDeclaredAndCannotBeForged) {
  CallerEvidence local;
  local.peer = "unix:/run/credledger.sock";
  local.declared = "alice";
  ASSERT_OK_AND_ASSIGN(Caller alice, ResolveCaller(local));
  EXPECT_EQ(RecordedActor(alice), "declared:alice");
  ASSERT_OK_AND_ASSIGN(Caller ops, ResolveCaller(Certified({"spiffe://corp/ops"}, "")));
  EXPECT_EQ(RecordedActor(ops), "spiffe://corp/ops");
  // The recorded form must fit an actor: a declared name has 119 bytes at most.
  local.declared = std::string(119, 'a');
  ASSERT_OK_AND_ASSIGN(Caller longest, ResolveCaller(local));
  EXPECT_EQ(RecordedActor(longest).size(), 128u);
  local.declared = std::string(120, 'a');
  EXPECT_THAT(ResolveCaller(local), StatusIs(absl::StatusCode::kUnauthenticated));
  // Neither a certificate nor a declared name may look like a recorded declared name.
  EXPECT_THAT(ResolveCaller(Certified({"declared:alice"}, "")),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("reserved")));
  local.declared = "declared:alice";
  EXPECT_THAT(ResolveCaller(local),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("reserved")));
}

TEST(ResolveCallerTest, NetworkPeersWithoutCertificateAreAnonymousAndMayNotDeclare) {
  CallerEvidence evidence;
  evidence.peer = "ipv4:10.0.0.7:50000";
  ASSERT_OK_AND_ASSIGN(Caller nobody, ResolveCaller(evidence));
  EXPECT_EQ(nobody.identity, "anonymous");
  evidence.declared = "anonymous";
  EXPECT_OK(ResolveCaller(evidence));
  evidence.declared = "alice";
  EXPECT_THAT(ResolveCaller(evidence),
              StatusIs(absl::StatusCode::kUnauthenticated,
                       HasSubstr("honoured only on loopback or a unix socket")));
}

// A call with a bearer token over TLS from the network, as the TokenAuthenticator left it.
CallerEvidence WithToken(absl::StatusOr<std::string> identity) {
  CallerEvidence evidence;
  evidence.peer = "ipv4:10.0.0.7:50000";
  evidence.bearer_token = "eyJhbGciOi.payload.signature";
  evidence.token_identity = std::move(identity);
  return evidence;
}

TEST(ResolveCallerTest, AReviewedTokenNamesItsServiceAccount) {
  ASSERT_OK_AND_ASSIGN(Caller caller,
                       ResolveCaller(WithToken("system:serviceaccount:platform:deployer")));
  EXPECT_EQ(caller.identity, "system:serviceaccount:platform:deployer");
  EXPECT_EQ(caller.authentication, kAuthToken);
  EXPECT_EQ(RecordedActor(caller), "system:serviceaccount:platform:deployer");
}

TEST(ResolveCallerTest, ATokenIsRefusedWhenReviewedSoOrNotReviewableOrBesideACertificate) {
  EXPECT_THAT(ResolveCaller(WithToken(absl::UnauthenticatedError("the bearer token was refused"))),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("refused")));
  EXPECT_THAT(ResolveCaller(WithToken(absl::UnavailableError("token review: timeout"))),
              StatusIs(absl::StatusCode::kUnavailable));
  CallerEvidence unreviewed = WithToken("x");
  unreviewed.token_identity.reset();
  EXPECT_THAT(ResolveCaller(unreviewed),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("takes no bearer tokens")));
  CallerEvidence both = WithToken("system:serviceaccount:platform:deployer");
  both.certificate_verified = true;
  both.uri_sans = {"spiffe://corp/ops"};
  EXPECT_THAT(ResolveCaller(both),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("not both")));
  CallerEvidence declared = WithToken("system:serviceaccount:platform:deployer");
  declared.declared = "admin";
  EXPECT_THAT(ResolveCaller(declared), StatusIs(absl::StatusCode::kUnauthenticated,
                                                HasSubstr("differs from the token's identity")));
  CallerEvidence malformed;
  malformed.peer = "ipv4:127.0.0.1:1";
  malformed.malformed_authorization = true;
  EXPECT_THAT(ResolveCaller(malformed),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("only \"Bearer <token>\"")));
}

TEST(ResolveCallerTest, WhereRemoteCallersMustAuthenticateAnAnonymousOneIsRefused) {
  CallerEvidence remote;
  remote.peer = "ipv4:10.0.0.7:50000";
  EXPECT_OK(ResolveCaller(remote));  // anonymous: the policy decides
  remote.remote_must_authenticate = true;
  EXPECT_THAT(ResolveCaller(remote),
              StatusIs(absl::StatusCode::kUnauthenticated,
                       HasSubstr("present a client certificate (mutual TLS) or a "
                                 "ServiceAccount token")));
  CallerEvidence local = remote;
  local.peer = "ipv4:127.0.0.1:50000";
  EXPECT_OK(ResolveCaller(local));
}

}  // namespace caller_identity_test
}  // namespace credledger::service
