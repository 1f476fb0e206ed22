#include "service/decide/validation.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/status_matchers.h"

namespace credledger::service {
namespace validation_test {

using ::credledger::testing::StatusIs;
using ::testing::HasSubstr;

TEST(ValidateUidTest, AcceptsOnlyLowercaseRfc4122Form) {
  EXPECT_OK(ValidateUid("uid", "0b4e3f4a-8c9d-4e2f-a1b2-c3d4e5f60718"));
  for (const char* bad : {"0B4E3F4A-8C9D-4E2F-A1B2-C3D4E5F60718", "0b4e3f4a8c9d4e2fa1b2c3d4e5f60718",
                          "0b4e3f4a-8c9d-4e2f-a1b2-c3d4e5f6071", "g0000000-0000-0000-0000-000000000000"}) {
    EXPECT_THAT(ValidateUid("uid", bad), StatusIs(absl::StatusCode::kInvalidArgument,
                                                  HasSubstr("uid: \""))) << bad;
  }
}

// Regression: a refused kind, uid or api_version was echoed raw, control characters and
// all, and cut without saying so.
TEST(ValidateOwnerReferenceTest, RefusedValuesAreEchoedEscapedAndCutVisibly) {
  v1::OwnerReference owner;
  owner.set_api_version("batch/v1");
  owner.set_kind("J\x1b[31mob");
  owner.set_name("plan");
  EXPECT_THAT(ValidateOwnerReference(owner, false),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("owner.kind: \"J\\x1b[31mob\" is not a kind")));
  owner.set_kind("Job");
  owner.set_uid(std::string(100, 'u'));
  EXPECT_THAT(ValidateOwnerReference(owner, false),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("...\" (100 bytes) is not a lowercase RFC 4122 UUID")));
  owner.clear_uid();
  owner.set_api_version("batch/v1\n");
  EXPECT_THAT(ValidateOwnerReference(owner, false),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("owner.api_version: \"batch/v1\\n\" is neither")));
}

TEST(ValidateTokenTest, RequiresPrintableAsciiWithinTheLimit) {
  EXPECT_OK(ValidateToken("revision", "1.0.0-abc", 253));
  EXPECT_THAT(ValidateToken("revision", "", 253),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("revision: required")));
  EXPECT_THAT(ValidateToken("revision", "a b", 253),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("printable ASCII")));
  EXPECT_THAT(ValidateToken("revision", std::string(254, 'a'), 253),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("at most 253")));
}

// Regression: a client could send request id "service-configured/2" or a bridge step id and
// make credledger's own later command look like an answered retry.
TEST(ValidateClientRequestIdTest, RejectsThePrefixReservedForTheService) {
  EXPECT_OK(ValidateClientRequestId("5d00dc93-e686-4aa8-a557-f0099775b846", 128));
  EXPECT_THAT(ValidateClientRequestId("credledger:service-configured/2", 128),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("request_id: the prefix \"credledger:\" is reserved")));
  EXPECT_THAT(ValidateClientRequestId("", 128),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("request_id: required")));
}

TEST(ValidateOwnerReferenceTest, CoreAndGroupApiVersionsAreAccepted) {
  v1::OwnerReference owner;
  owner.set_api_version("v1");
  owner.set_kind("ConfigMap");
  owner.set_name("settings");
  EXPECT_OK(ValidateOwnerReference(owner, /*require_uid=*/false));
  owner.set_api_version("infrastructure.cluster.x-k8s.io/v1beta1");
  owner.set_uid("0f8fad5b-d9cb-469f-a165-70867728950e");
  EXPECT_OK(ValidateOwnerReference(owner, /*require_uid=*/true));
  owner.set_api_version("v2");
  EXPECT_THAT(ValidateOwnerReference(owner, /*require_uid=*/true),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("owner.api_version")));
}

TEST(ValidateOwnerReferenceTest, UidIsRequiredOnlyWhenAskedButAlwaysCheckedWhenGiven) {
  v1::OwnerReference owner;
  owner.set_api_version("v1");
  owner.set_kind("ConfigMap");
  owner.set_name("settings");
  EXPECT_THAT(ValidateOwnerReference(owner, /*require_uid=*/true),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("owner.uid: required")));
  owner.set_uid("0f8fad5b-d9cb-469f-a165-70867728950e");
  EXPECT_OK(ValidateOwnerReference(owner, /*require_uid=*/false));
  owner.set_uid("uid 1");
  EXPECT_THAT(ValidateOwnerReference(owner, /*require_uid=*/false),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("owner.uid")));
}

// Regression: any printable token was taken as an owner uid, so `identity bind --owner-uid
// not-a-uid` wrote "not-a-uid" into the mirror's ownerReferences. Kubernetes object uids are
// RFC 4122 UUIDs; the rule is the one of `target register --uid`.
TEST(ValidateOwnerReferenceTest, UidMustBeALowercaseRfc4122Uuid) {
  v1::OwnerReference owner;
  owner.set_api_version("batch/v1");
  owner.set_kind("Job");
  owner.set_name("plan");
  for (bool require_uid : {true, false}) {
    for (const char* bad : {"not-a-uid", "0F8FAD5B-D9CB-469F-A165-70867728950E",
                            "0f8fad5bd9cb469fa16570867728950e", "uid-1"}) {
      owner.set_uid(bad);
      EXPECT_THAT(ValidateOwnerReference(owner, require_uid),
                  StatusIs(absl::StatusCode::kInvalidArgument,
                           HasSubstr(std::string("owner.uid: \"") + bad +
                                     "\" is not a lowercase RFC 4122 UUID")))
          << bad;
    }
  }
}

}  // namespace validation_test
}  // namespace credledger::service
