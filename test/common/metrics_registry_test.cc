// MetricsRegistry: the text exposition (HELP/TYPE lines, label sets, histogram series),
// ordering, escaping of label values, name checks, and counters that add up under threads.
#include "common/metrics_registry.h"

#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/status_matchers.h"

namespace credledger::common {
namespace metrics_registry_test {

using ::credledger::testing::StatusIs;
using ::testing::HasSubstr;

TEST(MetricsRegistryTest, ACounterFamilyRendersHelpTypeAndOneLinePerChild) {
  MetricsRegistry registry;
  ASSERT_OK_AND_ASSIGN(MetricFamily<Counter> * requests,
                       registry.AddCounter("credledger_test_requests_total",
                                           "Requests by verb and code.", {"verb", "code"}));
  requests->WithLabels({"get", "200"}).Increment(3);
  requests->WithLabels({"create", "201"}).Increment();
  requests->WithLabels({"get", "200"}).Increment();
  EXPECT_EQ(registry.Render(),
            "# HELP credledger_test_requests_total Requests by verb and code.\n"
            "# TYPE credledger_test_requests_total counter\n"
            "credledger_test_requests_total{verb=\"create\",code=\"201\"} 1\n"
            "credledger_test_requests_total{verb=\"get\",code=\"200\"} 4\n");
}

TEST(MetricsRegistryTest, MetricsAreRenderedInNameOrder) {
  MetricsRegistry registry;
  ASSERT_OK(registry.AddCallbackValue("b_gauge", "B.", MetricType::kGauge, [] { return 2.5; }));
  ASSERT_OK_AND_ASSIGN(MetricFamily<Gauge> * a, registry.AddGauge("a_gauge", "A."));
  a->WithLabels({}).Set(7);
  EXPECT_EQ(registry.Render(),
            "# HELP a_gauge A.\n# TYPE a_gauge gauge\na_gauge 7\n"
            "# HELP b_gauge B.\n# TYPE b_gauge gauge\nb_gauge 2.5\n");
}

TEST(MetricsRegistryTest, CallbacksAreReadAtEachRender) {
  MetricsRegistry registry;
  int64_t appended = 5;
  ASSERT_OK(registry.AddCallbackValue("appended_total", "Appended.", MetricType::kCounter,
                                      [&appended] { return static_cast<double>(appended); }));
  EXPECT_THAT(registry.Render(), HasSubstr("\nappended_total 5\n"));
  appended = 9;
  EXPECT_THAT(registry.Render(), HasSubstr("\nappended_total 9\n"));
}

TEST(MetricsRegistryTest, CallbackSamplesCarryTheirLabels) {
  MetricsRegistry registry;
  ASSERT_OK(registry.AddCallback("targets", "Targets by condition.", MetricType::kGauge,
                                 {"status", "reason"}, [] {
                                   return std::vector<MetricSample>{{{"True", "Issued"}, 3},
                                                                    {{"False"}, 1}};
                                 }));
  EXPECT_THAT(registry.Render(), HasSubstr("targets{status=\"True\",reason=\"Issued\"} 3\n"
                                           "targets{status=\"False\",reason=\"\"} 1\n"));
}

TEST(MetricsRegistryTest, LabelValuesAreEscapedAndHelpTooSoNothingBreaksALine) {
  MetricsRegistry registry;
  ASSERT_OK_AND_ASSIGN(MetricFamily<Counter> * family,
                       registry.AddCounter("escaped_total", "Line one\nline \\two", {"value"}));
  family->WithLabels({"a\"b\\c\nd"}).Increment();
  EXPECT_EQ(registry.Render(),
            "# HELP escaped_total Line one\\nline \\\\two\n"
            "# TYPE escaped_total counter\n"
            "escaped_total{value=\"a\\\"b\\\\c\\nd\"} 1\n");
}

TEST(MetricsRegistryTest, AHistogramRendersCumulativeBucketsInfSumAndCount) {
  MetricsRegistry registry;
  Histogram latency({0.005, 0.25, 1});
  ASSERT_OK(registry.AddHistogram("latency_seconds", "Latency.", &latency));
  latency.Observe(0.001);
  latency.Observe(0.25);
  latency.Observe(0.5);
  latency.Observe(4);
  EXPECT_EQ(registry.Render(),
            "# HELP latency_seconds Latency.\n"
            "# TYPE latency_seconds histogram\n"
            "latency_seconds_bucket{le=\"0.005\"} 1\n"
            "latency_seconds_bucket{le=\"0.25\"} 2\n"
            "latency_seconds_bucket{le=\"1\"} 3\n"
            "latency_seconds_bucket{le=\"+Inf\"} 4\n"
            "latency_seconds_sum 4.751\n"
            "latency_seconds_count 4\n");
}

TEST(MetricsRegistryTest, AFamilyWithoutChildrenRendersOnlyItsHeader) {
  MetricsRegistry registry;
  ASSERT_OK(registry.AddCounter("idle_total", "Idle.", {"verb"}).status());
  EXPECT_EQ(registry.Render(), "# HELP idle_total Idle.\n# TYPE idle_total counter\n");
}

TEST(MetricsRegistryTest, BadNamesAndDuplicatesAreRefused) {
  MetricsRegistry registry;
  EXPECT_THAT(registry.AddCounter("bad-name", "x").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("\"bad-name\"")));
  EXPECT_THAT(registry.AddCounter("ok_total", "x", {"__reserved"}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("__reserved")));
  EXPECT_THAT(registry.AddCounter("ok_total", "x", {"verb", "verb"}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("repeated")));
  ASSERT_OK(registry.AddCounter("ok_total", "x").status());
  EXPECT_THAT(registry.AddGauge("ok_total", "y").status(),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("\"ok_total\"")));
  EXPECT_THAT(registry.AddCallback("h", "x", MetricType::kHistogram, {}, {}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  Histogram unordered({1, 1});
  EXPECT_THAT(registry.AddHistogram("unordered_seconds", "x", &unordered),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("strictly increasing")));
  // Only the one good registration renders.
  EXPECT_EQ(registry.Render(), "# HELP ok_total x\n# TYPE ok_total counter\n");
}

TEST(MetricsRegistryTest, ConcurrentIncrementsOfNewAndExistingChildrenAllCount) {
  MetricsRegistry registry;
  ASSERT_OK_AND_ASSIGN(MetricFamily<Counter> * family,
                       registry.AddCounter("concurrent_total", "x", {"code"}));
  constexpr int kThreads = 8;
  constexpr int kPerThread = 5000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([family, &registry] {
      for (int i = 0; i < kPerThread; ++i) {
        // Ten children, created by whichever thread comes first; renders run beside.
        family->WithLabels({absl::StrCat(i % 10)}).Increment();
        if (i % 1000 == 0) registry.Render();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  const std::string text = registry.Render();
  for (int code = 0; code < 10; ++code) {
    EXPECT_THAT(text, HasSubstr(absl::StrCat("concurrent_total{code=\"", code, "\"} ",
                                             kThreads * kPerThread / 10, "\n")));
  }
}

}  // namespace metrics_registry_test
}  // namespace credledger::common
