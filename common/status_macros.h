// Status propagation macros with the upstream abseil names, which abseil 20220623 lacks.
//
// RETURN_IF_ERROR(expr): evaluates `expr` (an absl::Status) and returns it from the
// enclosing function when it is not OK.
// ASSIGN_OR_RETURN(lhs, expr): evaluates `expr` (an absl::StatusOr<T>); on error returns
// its status, otherwise moves the value into `lhs` (which may be a declaration).
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define CREDLEDGER_CONCAT_INNER(a, b) a##b
#define CREDLEDGER_CONCAT(a, b) CREDLEDGER_CONCAT_INNER(a, b)

#define RETURN_IF_ERROR(expr)                                   \
  do {                                                          \
    ::absl::Status credledger_status_ = (expr);                 \
    if (!credledger_status_.ok()) return credledger_status_;    \
  } while (0)

#define CREDLEDGER_ASSIGN_OR_RETURN_IMPL(statusor, lhs, expr) \
  auto statusor = (expr);                                     \
  if (!statusor.ok()) return std::move(statusor).status();    \
  lhs = *std::move(statusor)

#define ASSIGN_OR_RETURN(lhs, expr) \
  CREDLEDGER_ASSIGN_OR_RETURN_IMPL( \
      CREDLEDGER_CONCAT(credledger_statusor_, __LINE__), lhs, expr)
