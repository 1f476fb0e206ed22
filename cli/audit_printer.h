// Text output of the audit and forensics subcommands (docs/forensics.md; docs/audit.md,
// "Export"): replay, diff and valid-credentials answers and the export summary. `--output json`
// prints the responses themselves (target_printer.h, ToJson). Times are RFC 3339 in UTC with
// their microseconds, since the order of events a few milliseconds apart can matter in an
// investigation. Never prints a token: the API returns none, only fingerprints.
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "absl/time/time.h"
#include "audit/export_format.h"
#include "credledger/v1/api.pb.h"

namespace credledger::cli {

// One line (with its newline) naming the service configuration then in force:
// "service: credentials enabled, agent API server <url>, CA sha256 <first 12 hex>..., token
// TTL <duration>, connection hash <hash>", "service: credentials disabled", or, when `set`
// is false, "service: not configured yet".
std::string FormatServiceLine(const v1::ServiceConfigured& service, bool set);

// `credledger replay`: "as of seq N (recorded <time>)" ("as of seq 0 (the empty log)"), the
// service line, then per Target a blank line, its FormatTargetText and the FormatStatusText
// of its rollup when the response has one; "no Targets" when there are none.
std::string FormatStateAtText(const v1::GetStateAtResponse& response);

// `credledger diff`: "from seq A to seq B: K changes", then one line per change:
// "seq N  <namespace>/<name>  <summary>", without "seq N  " for state comparisons (seq 0),
// with "service" in place of the Target for configuration changes.
std::string FormatDiffText(const v1::DiffResponse& response);

// `credledger valid-credentials --at <at>`: one line per credential, its fields separated by
// two spaces ("<namespace>/<name>  secret=<name>  tag=<tag>  token=<fingerprint>  issued <t>
// expires <t>", then "  deleted <t> (<reason>)" when the log knows of a later deletion),
// then "K credentials valid at <at> (log head seq H)".
std::string FormatValidCredentialsText(const v1::ValidCredentialsAtResponse& response,
                                       absl::Time at);

// What an export wrote: event lines and the seqs of the first and last (0 when none).
struct ExportTally {
  int64_t events = 0;
  int64_t first_seq = 0;
  int64_t last_seq = 0;
};

// The line `credledger export` prints on stderr after a complete export: "exported N events,
// seq A..B, " then "trailer signed by key K", or "trailer NOT signed: the server has no
// --signing-key; this export will not verify" when `trailer` has no signature, or for kCsv
// "csv has no trailer and does not verify". ", seq A..B" only when N > 0.
std::string FormatExportSummary(audit::ExportFormat format, const ExportTally& tally,
                                const v1::ExportTrailer& trailer);

}  // namespace credledger::cli
