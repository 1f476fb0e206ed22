// Every fault point of the real binaries (common/fault_points.h), in the order docs/testing.md
// lists them ("Fault points"). The crash workload test arms each of them in turn, the mint
// recovery test those of the minter; fault_point_list_test checks that this list, the
// FaultPoint calls of the product code and the page name the same points.
#pragma once

namespace credledger::testing {

inline constexpr const char* kFaultPoints[] = {
    "store.after_batch_command",
    "store.before_commit",
    "store.after_commit",
    "store.after_checkpoint_insert",
    "store.after_checkpoint_write",
    "store.after_snapshot_insert",
    "store.after_snapshot_write",
    "mint.before_secret_create",
    "mint.after_secret_create",
    "mint.after_secret_recorded",
    "mint.after_token_request",
    "mint.after_secret_update",
    "mint.after_issued_recorded",
    "credentials.after_released_delete",
    "credentials.after_secret_delete",
    "finalize.after_objects_delete",
    "mirror.before_secret_write",
    "mirror.after_secret_write",
    "mirror.after_outcomes_recorded",
    "report.before_submit",
    "report.after_submit",
};

}  // namespace credledger::testing
