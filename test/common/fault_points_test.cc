// FaultPoint (common/fault_points.h; docs/testing.md, "Fault points"): an armed point logs its
// name and kills the process with SIGKILL at the arrival it is armed for; a point that is not
// armed, and every other arrival, does nothing.
#include "common/fault_points.h"

#include <signal.h>
#include <stdlib.h>

#include <cstdio>
#include <cstdlib>

#include "gtest/gtest.h"

namespace credledger::common {
namespace fault_points_test {

// A fresh process per death test: the armed points are read once per process.
class FaultPointTest : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(FaultPointTest, OnlyAnArmedPointLogsItsNameAndKillsTheProcess) {
  EXPECT_EXIT(
      {
        setenv("CREDLEDGER_FAULT_POINTS", "test.other, test.armed", 1);
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

TEST_F(FaultPointTest, AnArrivalCountKillsAtThatArrivalOnly) {
  EXPECT_EXIT(
      {
        setenv("CREDLEDGER_FAULT_POINTS", "test.armed:3", 1);
        FaultPoint("test.armed");
        FaultPoint("test.armed");
        std::fputs("passed twice\n", stderr);
        FaultPoint("test.armed");
        std::exit(0);
      },
      ::testing::KilledBySignal(SIGKILL),
      "passed twice\n.*\"msg\":\"fault point reached\",\"point\":\"test.armed\"");
}

TEST_F(FaultPointTest, AnEntryWithABadArrivalIsLoggedAndIgnored) {
  EXPECT_EXIT(
      {
        setenv("CREDLEDGER_FAULT_POINTS", "test.armed:0,test.other:x", 1);
        FaultPoint("test.armed");
        FaultPoint("test.other");
        std::exit(0);
      },
      ::testing::ExitedWithCode(0),
      "CREDLEDGER_FAULT_POINTS: the arrival after ':' must be a whole number >= 1; entry "
      "ignored\",\"entry\":\"test.armed:0\"");
}

}  // namespace fault_points_test
}  // namespace credledger::common
