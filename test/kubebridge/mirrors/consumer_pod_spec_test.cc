// The consumer Pod spec fragment (docs/mirrors.md, "Delivery to workloads"):
// the whole document for a short identity, and the hashed mirror name for an identity whose
// mirror name would pass 253 characters.
#include "kubebridge/mirrors/consumer_pod_spec.h"

#include <string>

#include "gtest/gtest.h"
#include "test/support/reference_sha256.h"

namespace credledger::kubebridge {
namespace consumer_pod_spec_test {

// The fragment written out by hand from its description (docs/mirrors.md,
// "Delivery to workloads"): envFrom the mirror, and a read-only volume at
// /var/run/captf/credentials with mode 0440 (288 in decimal).
nlohmann::json Expected(const std::string& mirror, const std::string& container) {
  const std::string text = R"({
    "volumes": [{"name": "captf-credentials",
                 "secret": {"secretName": ")" +
                           mirror + R"(", "defaultMode": 288}}],
    "containers": [{"name": ")" +
                           container + R"(",
                    "envFrom": [{"secretRef": {"name": ")" +
                           mirror + R"("}}],
                    "volumeMounts": [{"name": "captf-credentials",
                                      "mountPath": "/var/run/captf/credentials",
                                      "readOnly": true}]}]
  })";
  return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
}

TEST(ConsumerPodSpecTest, MountsAndExportsTheMirrorOfTheIdentity) {
  const nlohmann::json expected = Expected("captf-creds-aws-prod", "terraform");
  ASSERT_FALSE(expected.is_discarded());
  EXPECT_EQ(ConsumerPodSpec("aws-prod", "terraform"), expected);
}

TEST(ConsumerPodSpecTest, TheModeIsOctal0440) {
  EXPECT_EQ(ConsumerPodSpec("a", "c")["volumes"][0]["secret"]["defaultMode"], 0440);
}

TEST(ConsumerPodSpecTest, ALongIdentityUsesTheHashedMirrorName) {
  // "captf-creds-" (12) + 242 characters = 254 > 253: the name is hashed.
  const std::string identity(242, 'a');
  const std::string mirror = "captf-creds-" + testing::ReferenceSha256HexPrefix(identity, 16);
  EXPECT_EQ(ConsumerPodSpec(identity, "runner"), Expected(mirror, "runner"));

  // 241 characters make exactly 253: the plain name.
  const std::string fits(241, 'a');
  EXPECT_EQ(ConsumerPodSpec(fits, "runner"), Expected("captf-creds-" + fits, "runner"));
}

}  // namespace consumer_pod_spec_test
}  // namespace credledger::kubebridge
