// The layer checks on the real tree, against the link lines CMake wrote at configure time
// (docs/architecture.md, "Layers" and "One command bus").
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/layering/append_check.h"
#include "test/layering/include_layers.h"
#include "test/support/status_matchers.h"

namespace credledger::testing {
namespace {

class TreeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(layers_, ReadLayers(CREDLEDGER_LAYER_FILE));
    ASSERT_GT(layers_.folder_of.count("credledger_service_api"), 0u);
  }

  // Fails listing `violations`, one a line, unless there are none.
  static void ExpectNone(const std::vector<std::string>& violations) {
    EXPECT_THAT(violations, ::testing::IsEmpty()) << absl::StrJoin(violations, "\n");
  }

  Layers layers_;
};

TEST_F(TreeTest, EveryProductIncludeIsOnTheIncludingLibrarysLinkLine) {
  ExpectNone(FindLayerViolations(layers_, CREDLEDGER_SOURCE_DIR));
}

TEST_F(TreeTest, OnlyTheCommandBusAndTheStoreReachTheWriter) {
  ExpectNone(FindAppendViolations(layers_, CREDLEDGER_SOURCE_DIR));
}

}  // namespace
}  // namespace credledger::testing
