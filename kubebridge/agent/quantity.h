// Kubernetes resource quantities ("3800m", "16Gi", "1e3"), as the agent reads them from node
// allocatable and container requests and writes them into spec.capacity of its TargetReport
// (docs/reports.md, "The agent" and "TargetReport": each list a corev1.ResourceList).
//
// A quantity is <sign><digits>[.<digits>]<suffix>, the suffix one of
//   decimal SI:        "" n u m k M G T P E   (10^0, 10^-9 ... 10^18)
//   binary SI:         Ki Mi Gi Ti Pi Ei      (2^10 ... 2^60)
//   decimal exponent:  e<int> or E<int>, the int with an optional sign ("1e3", "5E-3");
//                      a lone "E" is exa.
// The value is held exactly, in units of 10^-9 (nano), the finest precision Kubernetes
// keeps: a value with finer digits is rounded away from zero to the next nano, as
// Kubernetes does ("0.1n" -> "1n"). Formatting is Kubernetes' canonical form: the format
// of the parsed suffix is kept; a decimal value is written as an integer mantissa with the
// largest suffix whose exponent is a multiple of 3 and keeps it integral ("1500m", "2",
// "1k"; "1e3" for the exponent form); a binary value with the largest binary suffix that
// divides it ("1536Mi"), or in decimal SI when it is below 1024 in magnitude or not a whole
// number; zero is "0".
//
// Deviations from Kubernetes, all on input no real cluster writes: a number without any
// digit ("-", ".") is an error, where Kubernetes reads 0; more than 36 significant digits
// are an error; magnitudes above 2^63-1 (Kubernetes' documented bound) are an error where
// Kubernetes keeps larger decimal values.
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <string>

#include "absl/numeric/int128.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace credledger::kubebridge {

// How a quantity was written; the canonical form keeps it.
enum class QuantityFormat { kDecimalSI, kBinarySI, kDecimalExponent };

struct Quantity {
  // The exact value in units of 10^-9.
  absl::int128 nanos = 0;
  QuantityFormat format = QuantityFormat::kDecimalSI;
};

// Parses `text` (see the file comment).
// Errors: kInvalidArgument naming the text and the rule: empty, no digits, an unknown
// suffix, a bad exponent, more than 36 significant digits, or a magnitude above 2^63-1.
absl::StatusOr<Quantity> ParseQuantity(absl::string_view text);

// a + b, exact; the result takes a's format, or b's when a is zero (as Kubernetes' Add).
// Errors: kOutOfRange when the sum's magnitude exceeds 2^63-1.
absl::StatusOr<Quantity> AddQuantities(const Quantity& a, const Quantity& b);

// The canonical text of `q` (see the file comment); ParseQuantity of it gives q's value
// back.
std::string FormatQuantity(const Quantity& q);

}  // namespace credledger::kubebridge
