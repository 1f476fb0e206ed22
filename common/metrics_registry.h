// MetricsRegistry: the named metrics of one process and their Prometheus text exposition
// (format 0.0.4; docs/operations.md, "Metrics and health").
//
// Three kinds of metric:
//   - families of Counters or Gauges with labels, whose children the code updates (push);
//   - callbacks that read counters or gauges when the registry renders (pull): modules such
//     as store/ and projections/ expose plain accessors, and the service registers a
//     callback over them, so they need not know the registry;
//   - Histograms owned elsewhere (for example by the event store) and read when rendering.
// Names follow Prometheus conventions (credledger_ prefix, unit suffixes _seconds, _total,
// _bytes); Render lists the metrics by name, and the children of a family by label values.
//
// Thread-safety: every method is thread-safe. Updating a child (Counter::Increment) is one
// atomic operation; MetricFamily::WithLabels takes the family's lock shared once the child
// exists. Render holds the registry's lock shared while it runs the callbacks, which must
// not block for long nor call the registry.
// Invariant: names are unique in a registry, and every sample of a metric has one value per
// label name.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "common/histogram.h"
#include "common/metric_values.h"

namespace credledger::common {

enum class MetricType { kCounter, kGauge, kHistogram };

// One sample of a counter or gauge: the label values, in the order of the metric's label
// names, and the value.
struct MetricSample {
  std::vector<std::string> label_values;
  double value = 0;
};

// Reads the samples of a callback metric at render time.
using SampleReader = std::function<std::vector<MetricSample>()>;

// The children of one counter or gauge metric, one per set of label values. V is Counter or
// Gauge.
template <typename V>
class MetricFamily {
 public:
  explicit MetricFamily(size_t label_count) : label_count_(label_count) {}

  // The child for `label_values` (one per label name, in order), created at 0 on first use.
  // The reference stays valid as long as the family. Missing values are taken as "" and
  // extra ones are ignored.
  V& WithLabels(std::vector<std::string> label_values) {
    label_values.resize(label_count_);
    {
      absl::ReaderMutexLock lock(&mu_);
      auto it = children_.find(label_values);
      if (it != children_.end()) return *it->second;
    }
    absl::MutexLock lock(&mu_);
    std::unique_ptr<V>& child = children_[std::move(label_values)];
    if (child == nullptr) child = std::make_unique<V>();
    return *child;
  }

  // Every child's label values and value, ordered by label values.
  std::vector<MetricSample> Samples() const {
    absl::ReaderMutexLock lock(&mu_);
    std::vector<MetricSample> samples;
    samples.reserve(children_.size());
    for (const auto& [labels, child] : children_) {
      samples.push_back({labels, static_cast<double>(child->Value())});
    }
    return samples;
  }

 private:
  const size_t label_count_;
  mutable absl::Mutex mu_;
  std::map<std::vector<std::string>, std::unique_ptr<V>> children_ ABSL_GUARDED_BY(mu_);
};

class MetricsRegistry {
 public:
  MetricsRegistry() = default;
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  // Adds a counter family `name` with `label_names`. The family lives as long as the
  // registry.
  // Errors: kInvalidArgument for a malformed metric or label name (metric_text.h) or a
  // repeated label name; kAlreadyExists when `name` is taken.
  absl::StatusOr<MetricFamily<Counter>*> AddCounter(absl::string_view name,
                                                    absl::string_view help,
                                                    std::vector<std::string> label_names = {});
  // The same for a gauge family.
  absl::StatusOr<MetricFamily<Gauge>*> AddGauge(absl::string_view name, absl::string_view help,
                                                std::vector<std::string> label_names = {});

  // Adds a counter or gauge (`type`) whose samples `read` returns at each Render; every
  // sample must carry one value per label name (missing ones render as "", extra ones are
  // dropped). `read` must stay callable as long as the registry renders.
  // Errors: as AddCounter; kInvalidArgument when `type` is kHistogram.
  absl::Status AddCallback(absl::string_view name, absl::string_view help, MetricType type,
                           std::vector<std::string> label_names, SampleReader read);
  // A callback metric without labels whose one value `read` returns.
  absl::Status AddCallbackValue(absl::string_view name, absl::string_view help, MetricType type,
                                std::function<double()> read);

  // Adds `histogram` (not owned; must outlive every Render) as histogram `name`, rendered as
  // name_bucket{le="..."}, name_sum and name_count.
  // Errors: as AddCounter; kInvalidArgument when the bounds are empty, not finite or not
  // strictly increasing.
  absl::Status AddHistogram(absl::string_view name, absl::string_view help,
                            const Histogram* histogram);

  // The exposition of every metric, ordered by name (kExpositionContentType).
  std::string Render() const;

 private:
  struct Metric {
    std::string help;
    MetricType type = MetricType::kCounter;
    std::vector<std::string> label_names;
    // Counters and gauges: the samples now.
    SampleReader read;
    // Histograms.
    const Histogram* histogram = nullptr;
  };

  // Checks the names, then adds `metric` as `name`. Errors: as AddCounter.
  absl::Status Add(absl::string_view name, Metric metric);
  // AddCounter and AddGauge: a new family of `type`, kept in `owner` (counters_ or gauges_).
  template <typename V>
  absl::StatusOr<MetricFamily<V>*> AddFamily(absl::string_view name, absl::string_view help,
                                             MetricType type, std::vector<std::string> label_names,
                                             std::vector<std::unique_ptr<MetricFamily<V>>>& owner);

  mutable absl::Mutex mu_;
  std::map<std::string, Metric, std::less<>> metrics_ ABSL_GUARDED_BY(mu_);
  std::vector<std::unique_ptr<MetricFamily<Counter>>> counters_ ABSL_GUARDED_BY(mu_);
  std::vector<std::unique_ptr<MetricFamily<Gauge>>> gauges_ ABSL_GUARDED_BY(mu_);
};

}  // namespace credledger::common
