// The pieces of the Prometheus text exposition format, version 0.0.4, that
// MetricsRegistry::Render writes (docs/operations.md, "Metrics and health"):
//   # HELP <name> <help with \ and newline escaped>
//   # TYPE <name> counter|gauge|histogram
//   <name>{<label>="<value with \ " and newline escaped>",...} <value>
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "absl/strings/string_view.h"

namespace credledger::common {

// The Content-Type of a rendered exposition.
inline constexpr char kExpositionContentType[] = "text/plain; version=0.0.4; charset=utf-8";

// `value` for inside a quoted label value: backslash, double quote and newline become \\,
// \" and \n; every other byte is kept.
std::string EscapeLabelValue(absl::string_view value);

// `help` for a HELP line: backslash and newline become \\ and \n.
std::string EscapeHelp(absl::string_view help);

// A sample value or bucket bound: the fewest digits that read back as `value`, in fixed
// notation for decimal exponents -4 to 5 and in exponent notation otherwise ("3", "0.25",
// "0.0005", "123456", "1.234567e+06", "1.5e-07"), or "+Inf", "-Inf", "NaN".
std::string FormatSampleValue(double value);

// Metric names match [a-zA-Z_:][a-zA-Z0-9_:]*.
bool IsValidMetricName(absl::string_view name);

// Label names match [a-zA-Z_][a-zA-Z0-9_]* and do not start with "__" (reserved).
bool IsValidLabelName(absl::string_view name);

}  // namespace credledger::common
