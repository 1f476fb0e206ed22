// The crash workload (test/integration/crash_workload.h; docs/testing.md, "Crash test") on
// one SQLite file: 200 cycles by default (CREDLEDGER_CRASH_CYCLES), every fourth arming a
// fault point, so that a run arms each point about twice.
#include "test/integration/crash_workload.h"

#include "gtest/gtest.h"

namespace credledger::testing {
namespace crash_workload_test {

using crash_workload::CrashRunPlan;
using crash_workload::CrashWorkloadTest;

TEST_F(CrashWorkloadTest, RandomKillsDuringAWorkloadKeepTheLogAndTheClusterConsistent) {
  RunCrashWorkload(CrashRunPlan{"CREDLEDGER_CRASH_CYCLES", 200, 4});
}

}  // namespace crash_workload_test
}  // namespace credledger::testing
