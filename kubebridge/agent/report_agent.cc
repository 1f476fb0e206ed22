#include "kubebridge/agent/report_agent.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/dns_label.h"
#include "common/log.h"
#include "common/rfc3339.h"
#include "common/status_macros.h"
#include "google/protobuf/util/message_differencer.h"
#include "kubebridge/agent/report_collector.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/credentials/agent_objects.h"
#include "kubebridge/reports/target_report_codec.h"
#include "projections/report_validation.h"

namespace credledger::kubebridge {
namespace {

constexpr int kDefaultMaxReportAgeIntervals = 10;

absl::Duration EffectiveMaxReportAge(const ReportAgentOptions& options) {
  return options.max_report_age == absl::ZeroDuration()
             ? kDefaultMaxReportAgeIntervals * options.interval
             : options.max_report_age;
}

}  // namespace

absl::Status ValidateReportAgentOptions(const ReportAgentOptions& options) {
  RETURN_IF_ERROR(common::ValidateDnsLabel("--target-namespace", options.target_namespace));
  RETURN_IF_ERROR(common::ValidateDnsLabel("--target-name", options.target_name));
  if (options.interval < absl::Seconds(1)) {
    return absl::InvalidArgumentError(absl::StrCat("--interval: must be at least 1s, got ",
                                                   absl::FormatDuration(options.interval)));
  }
  if (options.max_report_age != absl::ZeroDuration() && options.max_report_age < options.interval) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--max-report-age: must be at least --interval (", absl::FormatDuration(options.interval),
        "), got ", absl::FormatDuration(options.max_report_age)));
  }
  return absl::OkStatus();
}

ReportAgent::ReportAgent(KubeClient* target_cluster, KubeClient* solar, common::Clock* clock,
                         ReportAgentOptions options)
    : target_cluster_(target_cluster),
      solar_(solar),
      clock_(clock),
      options_(std::move(options)),
      max_report_age_(EffectiveMaxReportAge(options_)),
      report_key_(absl::StrCat(options_.target_namespace, "/", options_.target_name)) {}

absl::StatusOr<TickOutcome> ReportAgent::Tick(Cancellation* cancel) {
  const absl::Time now = clock_->Now();
  absl::StatusOr<CollectedReport> collected = CollectTargetReport(*target_cluster_, cancel);
  if (!collected.ok()) {
    common::Log(common::LogLevel::kWarning, "collecting the report failed",
                {{"targetReport", report_key_}, {"error", collected.status().ToString()}});
    return collected.status();
  }
  LogSkipped(collected->skipped);
  const v1::TargetReportSpec& content = collected->spec;
  const bool changed = !last_pushed_.has_value() ||
                       !google::protobuf::util::MessageDifferencer::Equals(*last_pushed_, content);
  const bool aged = now - last_push_time_ >= max_report_age_;
  if (!changed && !aged) return TickOutcome::kUnchanged;

  v1::TargetReportSpec report = content;
  report.mutable_last_report_time()->set_seconds(absl::ToUnixSeconds(now));
  if (absl::Status valid = projections::ValidateReportContent(report, "spec"); !valid.ok()) {
    common::Log(common::LogLevel::kError, "the collected report is invalid; not pushed",
                {{"targetReport", report_key_}, {"error", valid.ToString()}});
    return valid;
  }
  absl::StatusOr<std::string> resource_version = Push(report, cancel);
  if (!resource_version.ok()) {
    common::Log(common::LogLevel::kWarning, "pushing the report failed",
                {{"targetReport", report_key_}, {"error", resource_version.status().ToString()}});
    return resource_version.status();
  }
  const char* reason = !last_pushed_.has_value() ? "first push since start"
                       : changed                 ? "changed"
                                                 : "max report age reached";
  last_pushed_ = content;
  last_push_time_ = now;
  CheckClock(absl::FromUnixSeconds(report.last_report_time().seconds()));
  common::Log(common::LogLevel::kInfo, "report pushed",
              {{"targetReport", report_key_},
               {"reason", reason},
               {"lastReportTime",
                common::FormatRfc3339(absl::FromUnixSeconds(report.last_report_time().seconds()))},
               {"resourceVersion", *resource_version},
               {"releases", absl::StrCat(report.releases_size())}});
  return TickOutcome::kPushed;
}

absl::StatusOr<std::string> ReportAgent::Push(const v1::TargetReportSpec& spec,
                                              Cancellation* cancel) {
  const ResourceRef ref = TargetReportResource(options_.target_namespace, options_.target_name);
  const nlohmann::json encoded = EncodeTargetReportSpec(spec);
  absl::Status last;
  for (int attempt = 0; attempt < 2; ++attempt) {
    absl::StatusOr<nlohmann::json> live = solar_->Get(ref, cancel);
    if (live.ok()) {
      (*live)["spec"] = encoded;
      absl::StatusOr<nlohmann::json> updated = solar_->Update(ref, *live, cancel);
      if (updated.ok()) return StringAt(*updated, {"metadata", "resourceVersion"});
      last = updated.status();
    } else {
      last = live.status();
    }
    if (last.code() != absl::StatusCode::kAborted) break;
  }
  if (last.code() == absl::StatusCode::kNotFound) {
    return absl::NotFoundError(
        absl::StrCat("TargetReport ", report_key_,
                     " does not exist; credledger creates it when the Target is registered"));
  }
  return absl::Status(last.code(),
                      absl::StrCat("update TargetReport ", report_key_, ": ", last.message()));
}

void ReportAgent::CheckClock(absl::Time report_time) {
  const std::optional<absl::Time> server_time = solar_->server_date();
  if (!server_time.has_value()) return;
  const bool ahead = projections::ReportTimeTooFarAhead(report_time, *server_time);
  if (ahead == clock_ahead_) return;
  clock_ahead_ = ahead;
  const std::string limit = absl::FormatDuration(projections::kMaxReportTimeAhead);
  const std::string offset = absl::FormatDuration(report_time - *server_time);
  if (!ahead) {
    common::Log(common::LogLevel::kInfo,
                absl::StrCat("the agent's clock is within ", limit,
                             " of the API server's again; credledger accepts its reports"),
                {{"targetReport", report_key_}, {"offset", offset}});
    return;
  }
  common::Log(
      common::LogLevel::kWarning,
      absl::StrCat("the agent's clock runs ahead of the API server's; credledger refuses reports "
                   "more than ",
                   limit, " ahead"),
      {{"targetReport", report_key_},
       {"offset", offset},
       {"lastReportTime", common::FormatRfc3339(report_time)},
       {"apiServerTime", common::FormatRfc3339(*server_time)},
       {"fix", "sync this node's clock (for example with NTP)"}});
}

void ReportAgent::LogSkipped(const std::vector<std::string>& skipped) {
  if (skipped == last_skipped_) return;
  last_skipped_ = skipped;
  if (skipped.empty()) return;
  common::Log(common::LogLevel::kWarning, "objects or values left out of the report",
              {{"targetReport", report_key_}, {"skipped", absl::StrJoin(skipped, "; ")}});
}

void ReportAgent::Run(Cancellation& stop) {
  absl::Time next = clock_->Now();
  while (stop.SleepUntil(*clock_, next)) {
    const absl::Time started = clock_->Now();
    Tick(&stop).IgnoreError();  // logged by Tick; the next tick retries
    {
      absl::MutexLock lock(&ticks_mu_);
      ++ticks_;
    }
    next = started + options_.interval;
  }
}

int64_t ReportAgent::ticks() const {
  absl::MutexLock lock(&ticks_mu_);
  return ticks_;
}

bool ReportAgent::WaitTicks(int64_t count, absl::Duration timeout) const {
  absl::MutexLock lock(&ticks_mu_);
  auto reached = [this, count]() ABSL_SHARED_LOCKS_REQUIRED(ticks_mu_) { return ticks_ >= count; };
  return ticks_mu_.AwaitWithTimeout(absl::Condition(&reached), timeout);
}

}  // namespace credledger::kubebridge
