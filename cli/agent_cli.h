// The `credledger agent` subcommand (docs/reports.md, "The agent"): runs the report agent
// (kubebridge/agent/report_agent.h) on a target cluster until SIGINT or SIGTERM.
//
// Flags: --target-namespace and --target-name (required, DNS-1123 labels: the Target whose
// TargetReport the agent writes), --solar-kubeconfig (required: the SolAr-side API server,
// usually with a tokenFile that is re-read when it changes), --kubeconfig (the target
// cluster; default the in-cluster service account), --interval (default 30s, at least 1s),
// --max-report-age (default ten intervals, at least --interval), --once (one collect and
// push, then exit).
//
// Output: "credledger agent reporting to TargetReport <ns>/<name> every <interval>" on
// stdout once running; with --once "pushed TargetReport <ns>/<name>". Progress and failed
// ticks are JSON log lines on stderr (common/log.h), never holding a token.
// Exit codes: 0 success; 2 for a missing or invalid flag value ("error: INVALID_ARGUMENT:
// --target-name: required"); 1 when a kubeconfig or the in-cluster configuration cannot be
// loaded or, with --once, when the collection or the push fails ("error: <CODE>: ...").
#pragma once

#include "cli/framework/subcommands.h"

namespace credledger::cli {

// Adds "agent" to `dispatcher`.
void AddAgentCommands(Dispatcher& dispatcher);

}  // namespace credledger::cli
