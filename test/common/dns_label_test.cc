#include "common/dns_label.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/status_matchers.h"

namespace credledger::common {
namespace {

using ::credledger::testing::StatusIs;
using ::testing::HasSubstr;

TEST(ValidateDnsLabelTest, AcceptsLabelsUpToSixtyThreeCharacters) {
  EXPECT_OK(ValidateDnsLabel("name", "edge-1"));
  EXPECT_OK(ValidateDnsLabel("name", std::string(63, 'a')));
  EXPECT_OK(ValidateDnsLabel("name", "0"));
}

TEST(ValidateDnsLabelTest, RejectsWhatKubernetesRejectsNamingTheField) {
  EXPECT_THAT(ValidateDnsLabel("name", ""), StatusIs(absl::StatusCode::kInvalidArgument,
                                                     HasSubstr("name: required")));
  EXPECT_THAT(ValidateDnsLabel("name", std::string(64, 'a')),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("at most 63")));
  for (const char* bad : {"Edge", "-edge", "edge-", "ed_ge", "ed.ge", "ed ge"}) {
    EXPECT_THAT(ValidateDnsLabel("namespace", bad),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("namespace: \"" + std::string(bad) + "\" is not a DNS-1123")))
        << bad;
  }
}

}  // namespace
}  // namespace credledger::common
