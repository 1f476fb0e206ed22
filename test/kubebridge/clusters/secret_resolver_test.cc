// SecretResolver against the test API server: direct GETs of Secret and ConfigMap keys, and
// errors that name the object and the key but never a value (docs/connections.md,
// "Secret and ConfigMap resolution").
#include "kubebridge/clusters/secret_resolver.h"

#include <memory>
#include <string>

#include "test/kubebridge/clusters/cluster_auth_fixture.h"
#include "test/kubebridge/fake_transport.h"

namespace credledger::kubebridge {
namespace secret_resolver_test {

using ::credledger::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::Not;

// Data that must never show up in a message.
constexpr char kSecretValue[] = "s3cr3t-value-never-in-messages";

class SecretResolverTest : public ClusterAuthFixture {};

TEST_F(SecretResolverTest, SecretKeyIsReturnedDecoded) {
  const std::string binary("line1\nline2\0\xff", 13);
  PutSecret("creds", {{"token", binary}, {"other", kSecretValue}});
  ASSERT_OK_AND_ASSIGN(std::string value,
                       resolver_->ResolveSecretKey(kNamespace, "creds", "token"));
  EXPECT_EQ(value, binary);
}

TEST_F(SecretResolverTest, MissingSecretIsNotFoundNamingTheSecretAndTheKey) {
  EXPECT_THAT(
      resolver_->ResolveSecretKey(kNamespace, "absent", "token"),
      StatusIs(absl::StatusCode::kNotFound, "Secret \"fleet/absent\" not found (key \"token\")"));
}

TEST_F(SecretResolverTest, MissingKeyIsNotFoundNamingTheSecretAndTheKeyButNoValue) {
  PutSecret("creds", {{"password", kSecretValue}});
  absl::StatusOr<std::string> value = resolver_->ResolveSecretKey(kNamespace, "creds", "token");
  EXPECT_THAT(value,
              StatusIs(absl::StatusCode::kNotFound, "Secret \"fleet/creds\" has no key \"token\""));
}

TEST_F(SecretResolverTest, EmptyNameOrKeyIsInvalidArgument) {
  EXPECT_THAT(resolver_->ResolveSecretKey(kNamespace, "", "token"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "Secret reference in namespace \"fleet\" has no name (key \"token\")"));
  EXPECT_THAT(resolver_->ResolveConfigMapKey(kNamespace, "", "ca.crt"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "ConfigMap reference in namespace \"fleet\" has no name (key \"ca.crt\")"));
  EXPECT_THAT(resolver_->ResolveSecretKey(kNamespace, "creds", ""),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "Secret \"fleet/creds\": the reference has no key"));
  EXPECT_THAT(resolver_->ResolveSecretKey("", "creds", "token"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "Secret reference \"creds\" has no namespace (key \"token\")"));
}

TEST_F(SecretResolverTest, ConfigMapReadsDataBeforeBinaryData) {
  CreateConfigMap("bundle", {{"ca.crt", "from-data"}, {"text-only", "t"}},
                  {{"ca.crt", "from-binary"}, {"blob", std::string("\x00\x01\xfe", 3)}});
  ASSERT_OK_AND_ASSIGN(std::string both,
                       resolver_->ResolveConfigMapKey(kNamespace, "bundle", "ca.crt"));
  EXPECT_EQ(both, "from-data");
  ASSERT_OK_AND_ASSIGN(std::string binary,
                       resolver_->ResolveConfigMapKey(kNamespace, "bundle", "blob"));
  EXPECT_EQ(binary, std::string("\x00\x01\xfe", 3));
  ASSERT_OK_AND_ASSIGN(std::string text,
                       resolver_->ResolveConfigMapKey(kNamespace, "bundle", "text-only"));
  EXPECT_EQ(text, "t");
}

TEST_F(SecretResolverTest, ConfigMapMissingObjectOrKeyNamesBoth) {
  CreateConfigMap("bundle", {{"other", kSecretValue}}, {{"blob", kSecretValue}});
  EXPECT_THAT(
      resolver_->ResolveConfigMapKey(kNamespace, "bundle", "ca.crt"),
      StatusIs(absl::StatusCode::kNotFound, "ConfigMap \"fleet/bundle\" has no key \"ca.crt\""));
  EXPECT_THAT(resolver_->ResolveConfigMapKey(kNamespace, "absent", "ca.crt"),
              StatusIs(absl::StatusCode::kNotFound,
                       "ConfigMap \"fleet/absent\" not found (key \"ca.crt\")"));
}

TEST_F(SecretResolverTest, ReferencesUseTheirKeyOrTheDefault) {
  PutSecret("creds", {{"token", "default-key-value"}, {"custom", "custom-key-value"}});
  CreateConfigMap("bundle", {{"ca.crt", "configmap-value"}});
  v1::SecretKeyRef secret_ref;
  secret_ref.set_name("creds");
  ASSERT_OK_AND_ASSIGN(std::string by_default, resolver_->Resolve(kNamespace, secret_ref, "token"));
  EXPECT_EQ(by_default, "default-key-value");
  secret_ref.set_key("custom");
  ASSERT_OK_AND_ASSIGN(std::string by_key, resolver_->Resolve(kNamespace, secret_ref, "token"));
  EXPECT_EQ(by_key, "custom-key-value");

  v1::ObjectKeyRef object_ref;
  object_ref.set_kind("ConfigMap");
  object_ref.set_name("bundle");
  ASSERT_OK_AND_ASSIGN(std::string from_config_map,
                       resolver_->Resolve(kNamespace, object_ref, "ca.crt"));
  EXPECT_EQ(from_config_map, "configmap-value");
  object_ref.set_kind("Secret");
  object_ref.set_name("creds");
  ASSERT_OK_AND_ASSIGN(std::string from_secret,
                       resolver_->Resolve(kNamespace, object_ref, "token"));
  EXPECT_EQ(from_secret, "default-key-value");
  object_ref.set_kind("Pod");
  EXPECT_THAT(resolver_->Resolve(kNamespace, object_ref, "token"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("has kind \"Pod\"; it must be \"Secret\" or \"ConfigMap\"")));
}

TEST_F(SecretResolverTest, OtherClientErrorsArePrefixedWithTheObject) {
  PutSecret("creds", {{"token", kSecretValue}});
  ConnectionConfig unprivileged = config_;
  unprivileged.token = ServiceAccountToken("nobody");
  std::unique_ptr<KubeClient> client = NewClient(unprivileged, ClientOptions());
  ASSERT_NE(client, nullptr);
  SecretResolver resolver(*client);
  absl::StatusOr<std::string> value = resolver.ResolveSecretKey(kNamespace, "creds", "token");
  EXPECT_THAT(value, StatusIs(absl::StatusCode::kPermissionDenied,
                              ::testing::StartsWith("Secret \"fleet/creds\": GET ")));
  EXPECT_THAT(value, StatusIs(absl::StatusCode::kPermissionDenied, Not(HasSubstr(kSecretValue))));
}

TEST(SecretResolverDecodeTest, InvalidBase64IsDataLossNamingTheKey) {
  // The test API server validates Secret data, so a scripted transport serves a bad value.
  auto transport = std::make_unique<FakeTransport>();
  transport->Push(FakeReply::Json(200, {{"kind", "Secret"},
                                        {"metadata", {{"name", "creds"}}},
                                        {"data", {{"token", "%%not-base64%%"}}}}));
  KubeClient client(std::move(transport), KubeClientOptions{});
  SecretResolver resolver(client);
  EXPECT_THAT(resolver.ResolveSecretKey("fleet", "creds", "token"),
              StatusIs(absl::StatusCode::kDataLoss,
                       "Secret \"fleet/creds\" key \"token\" is not valid base64"));
}

}  // namespace secret_resolver_test
}  // namespace credledger::kubebridge
