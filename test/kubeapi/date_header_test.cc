// Contract test: every response carries the server's clock as its Date header in the HTTP
// date form (RFC 9110 IMF-fixdate), as kube-apiserver's do; clients compare their own clock
// with it (docs/reports.md, "Clock skew").
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/kubeapi/test_support.h"

namespace credledger::kubeapi::testing {
namespace date_header_test {

using ::testing::ElementsAre;

// The values of the reply's Date headers.
std::vector<std::string> DateHeaders(const Reply& reply) {
  std::vector<std::string> dates;
  const auto [begin, end] = reply.headers.equal_range("Date");
  for (auto it = begin; it != end; ++it) dates.push_back(it->second);
  return dates;
}

class DateHeaderTest : public ApiServerTest {};

TEST_F(DateHeaderTest, EveryResponseCarriesTheServersClockAsItsDate) {
  Reply ok = Admin().Get("/api/v1/namespaces/default");
  EXPECT_EQ(ok.status, 200);
  EXPECT_THAT(DateHeaders(ok), ElementsAre("Thu, 01 Jan 2026 00:00:00 GMT"));

  // The date follows the injected clock, whole seconds, and errors carry it too.
  clock_.Advance(absl::Hours(24) + absl::Minutes(10) + absl::Milliseconds(1500));
  Reply unauthorized = As("").Get("/api/v1/namespaces/default");
  EXPECT_EQ(unauthorized.status, 401);
  EXPECT_THAT(DateHeaders(unauthorized), ElementsAre("Fri, 02 Jan 2026 00:10:01 GMT"));
  Reply missing = Admin().Get("/api/v1/namespaces/default/secrets/missing");
  EXPECT_EQ(missing.status, 404);
  EXPECT_THAT(DateHeaders(missing), ElementsAre("Fri, 02 Jan 2026 00:10:01 GMT"));
}

}  // namespace date_header_test
}  // namespace credledger::kubeapi::testing
