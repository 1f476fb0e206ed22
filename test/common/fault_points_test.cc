// FaultPoint (common/fault_points.h; docs/testing.md, "Fault points"): an armed point logs its
// name and kills the process with SIGKILL; a point that is not armed does nothing.
#include "common/fault_points.h"

#include <signal.h>
#include <stdlib.h>

#include <cstdlib>

#include "gtest/gtest.h"

namespace credledger::common {
namespace fault_points_test {

TEST(FaultPointTest, OnlyAnArmedPointLogsItsNameAndKillsTheProcess) {
  // A fresh process per death test: the armed points are read once per process.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("CREDLEDGER_FAULT_POINTS", "test.other,test.armed", 1);
        FaultPoint("test.unarmed");
        FaultPoint("test.armed");
        std::exit(0);
      },
      ::testing::KilledBySignal(SIGKILL),
      "\"msg\":\"fault point reached\",\"point\":\"test.armed\"");
  EXPECT_EXIT(
      {
        setenv("CREDLEDGER_FAULT_POINTS", "test.other", 1);
        FaultPoint("test.unarmed");
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace fault_points_test
}  // namespace credledger::common
