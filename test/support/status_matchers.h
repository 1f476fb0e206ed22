// Status test helpers with the upstream names, which abseil 20220623 lacks.
//   EXPECT_OK(expr) / ASSERT_OK(expr): expr is an absl::Status or absl::StatusOr<T>.
//   ASSERT_OK_AND_ASSIGN(lhs, expr): asserts expr (a StatusOr) is OK and moves its value.
//   StatusIs(code) / StatusIs(code, message_matcher): a gMock matcher for Status/StatusOr.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace credledger::testing {

inline const absl::Status& GetStatus(const absl::Status& status) { return status; }
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

MATCHER_P(StatusIs, code, "has status code " + ::testing::PrintToString(code)) {
  const absl::Status& status = ::credledger::testing::GetStatus(arg);
  *result_listener << "status is " << status.ToString();
  return status.code() == code;
}

MATCHER_P2(StatusIs, code, message_matcher, "") {
  const absl::Status& status = ::credledger::testing::GetStatus(arg);
  *result_listener << "status is " << status.ToString();
  return status.code() == code &&
         ::testing::ExplainMatchResult(message_matcher, std::string(status.message()),
                                       result_listener);
}

}  // namespace credledger::testing

#define CREDLEDGER_CHECK_OK_IMPL(check, expr)                                  \
  do {                                                                        \
    const auto& credledger_checked_ = (expr);                                 \
    check(::credledger::testing::GetStatus(credledger_checked_).ok())         \
        << ::credledger::testing::GetStatus(credledger_checked_).ToString();  \
  } while (0)
#define EXPECT_OK(expr) CREDLEDGER_CHECK_OK_IMPL(EXPECT_TRUE, expr)
#define ASSERT_OK(expr) CREDLEDGER_CHECK_OK_IMPL(ASSERT_TRUE, expr)

#define CREDLEDGER_TEST_CONCAT_INNER(a, b) a##b
#define CREDLEDGER_TEST_CONCAT(a, b) CREDLEDGER_TEST_CONCAT_INNER(a, b)
#define CREDLEDGER_ASSERT_OK_AND_ASSIGN_IMPL(statusor, lhs, expr) \
  auto statusor = (expr);                                          \
  ASSERT_TRUE(statusor.ok()) << statusor.status().ToString();      \
  lhs = *std::move(statusor)
#define ASSERT_OK_AND_ASSIGN(lhs, expr) \
  CREDLEDGER_ASSERT_OK_AND_ASSIGN_IMPL( \
      CREDLEDGER_TEST_CONCAT(credledger_test_statusor_, __LINE__), lhs, expr)
