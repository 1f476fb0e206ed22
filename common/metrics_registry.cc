#include "common/metrics_registry.h"

#include <cmath>
#include <set>

#include "absl/strings/str_cat.h"
#include "common/metric_text.h"

namespace credledger::common {
namespace {

const char* TypeName(MetricType type) {
  switch (type) {
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      return "histogram";
  }
  return "untyped";
}

// "{a="x",b="y"}" for the given names and values ("" for a missing value); "" without
// labels.
std::string LabelSet(const std::vector<std::string>& names,
                     const std::vector<std::string>& values) {
  if (names.empty()) return "";
  std::string out = "{";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ",";
    absl::StrAppend(&out, names[i], "=\"",
                    EscapeLabelValue(i < values.size() ? values[i] : ""), "\"");
  }
  out += "}";
  return out;
}

void RenderHistogram(const std::string& name, const Histogram& histogram, std::string& out) {
  const Histogram::Snapshot snapshot = histogram.Read();
  for (size_t i = 0; i < snapshot.bounds.size(); ++i) {
    absl::StrAppend(&out, name, "_bucket{le=\"", FormatSampleValue(snapshot.bounds[i]), "\"} ",
                    snapshot.cumulative[i], "\n");
  }
  const uint64_t count = snapshot.cumulative.back();
  absl::StrAppend(&out, name, "_bucket{le=\"+Inf\"} ", count, "\n");
  absl::StrAppend(&out, name, "_sum ", FormatSampleValue(snapshot.sum), "\n");
  absl::StrAppend(&out, name, "_count ", count, "\n");
}

}  // namespace

absl::Status MetricsRegistry::Add(absl::string_view name, Metric metric) {
  if (!IsValidMetricName(name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("metric \"", name, "\": not a valid Prometheus metric name"));
  }
  std::set<std::string> seen;
  for (const std::string& label : metric.label_names) {
    if (!IsValidLabelName(label) || (metric.type == MetricType::kHistogram && label == "le")) {
      return absl::InvalidArgumentError(
          absl::StrCat("metric \"", name, "\": label \"", label, "\" is not a valid label name"));
    }
    if (!seen.insert(label).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("metric \"", name, "\": label \"", label, "\" is repeated"));
    }
  }
  absl::MutexLock lock(&mu_);
  if (metrics_.contains(name)) {
    return absl::AlreadyExistsError(absl::StrCat("metric \"", name, "\" is already registered"));
  }
  metrics_.emplace(std::string(name), std::move(metric));
  return absl::OkStatus();
}

template <typename V>
absl::StatusOr<MetricFamily<V>*> MetricsRegistry::AddFamily(
    absl::string_view name, absl::string_view help, MetricType type,
    std::vector<std::string> label_names, std::vector<std::unique_ptr<MetricFamily<V>>>& owner) {
  auto family = std::make_unique<MetricFamily<V>>(label_names.size());
  MetricFamily<V>* raw = family.get();
  Metric metric{std::string(help), type, std::move(label_names), [raw] { return raw->Samples(); },
                nullptr};
  if (absl::Status added = Add(name, std::move(metric)); !added.ok()) return added;
  absl::MutexLock lock(&mu_);
  owner.push_back(std::move(family));
  return raw;
}

absl::StatusOr<MetricFamily<Counter>*> MetricsRegistry::AddCounter(
    absl::string_view name, absl::string_view help, std::vector<std::string> label_names) {
  return AddFamily(name, help, MetricType::kCounter, std::move(label_names), counters_);
}

absl::StatusOr<MetricFamily<Gauge>*> MetricsRegistry::AddGauge(
    absl::string_view name, absl::string_view help, std::vector<std::string> label_names) {
  return AddFamily(name, help, MetricType::kGauge, std::move(label_names), gauges_);
}

absl::Status MetricsRegistry::AddCallback(absl::string_view name, absl::string_view help,
                                          MetricType type, std::vector<std::string> label_names,
                                          SampleReader read) {
  if (type == MetricType::kHistogram) {
    return absl::InvalidArgumentError(
        absl::StrCat("metric \"", name, "\": a callback reads a counter or a gauge"));
  }
  return Add(name, Metric{std::string(help), type, std::move(label_names), std::move(read),
                          nullptr});
}

absl::Status MetricsRegistry::AddCallbackValue(absl::string_view name, absl::string_view help,
                                               MetricType type, std::function<double()> read) {
  return AddCallback(name, help, type, {}, [read = std::move(read)] {
    return std::vector<MetricSample>{{{}, read()}};
  });
}

absl::Status MetricsRegistry::AddHistogram(absl::string_view name, absl::string_view help,
                                           const Histogram* histogram) {
  const std::vector<double>& bounds = histogram->bounds();
  bool valid = !bounds.empty();
  for (size_t i = 0; valid && i < bounds.size(); ++i) {
    valid = std::isfinite(bounds[i]) && (i == 0 || bounds[i - 1] < bounds[i]);
  }
  if (!valid) {
    return absl::InvalidArgumentError(absl::StrCat(
        "metric \"", name, "\": bucket bounds must be finite and strictly increasing"));
  }
  return Add(name, Metric{std::string(help), MetricType::kHistogram, {}, nullptr, histogram});
}

std::string MetricsRegistry::Render() const {
  std::string out;
  absl::ReaderMutexLock lock(&mu_);
  for (const auto& [name, metric] : metrics_) {
    absl::StrAppend(&out, "# HELP ", name, " ", EscapeHelp(metric.help), "\n");
    absl::StrAppend(&out, "# TYPE ", name, " ", TypeName(metric.type), "\n");
    if (metric.histogram != nullptr) {
      RenderHistogram(name, *metric.histogram, out);
      continue;
    }
    for (const MetricSample& sample : metric.read()) {
      absl::StrAppend(&out, name, LabelSet(metric.label_names, sample.label_values), " ",
                      FormatSampleValue(sample.value), "\n");
    }
  }
  return out;
}

}  // namespace credledger::common
