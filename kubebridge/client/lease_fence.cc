#include "kubebridge/client/lease_fence.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/dns_label.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "kubebridge/client/json_util.h"

namespace credledger::kubebridge {
namespace {

// metav1.MicroTime: RFC 3339 in UTC with exactly six fractional digits.
std::string MicroTime(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", t, absl::UTCTimeZone());
}

int64_t IntField(const nlohmann::json& spec, const char* key, int64_t fallback) {
  auto it = spec.find(key);
  return it != spec.end() && it->is_number_integer() ? it->get<int64_t>() : fallback;
}

}  // namespace

absl::Status ValidateLeaseDuration(absl::Duration duration) {
  if (duration < kMinLeaseDuration || duration > kMaxLeaseDuration ||
      duration != absl::Seconds(absl::ToInt64Seconds(duration))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--lease-duration: ", absl::FormatDuration(duration),
        " is not a whole number of seconds from ", absl::FormatDuration(kMinLeaseDuration), " to ",
        absl::FormatDuration(kMaxLeaseDuration)));
  }
  return absl::OkStatus();
}

absl::Status ValidateLeaseFenceOptions(const LeaseFenceOptions& options) {
  if (options.identity.empty()) {
    return absl::InvalidArgumentError("--lease-identity: required");
  }
  RETURN_IF_ERROR(common::ValidateDnsLabel("--lease-namespace", options.namespace_name));
  RETURN_IF_ERROR(common::ValidateDnsSubdomain("--lease-name", options.name));
  RETURN_IF_ERROR(ValidateLeaseDuration(options.duration));
  if (options.renew_deadline >= options.duration ||
      options.retry_period >= options.renew_deadline ||
      options.retry_period <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--lease-duration: the renew deadline (", absl::FormatDuration(options.renew_deadline),
        ") must lie between the retry period (", absl::FormatDuration(options.retry_period),
        ") and the lease duration (", absl::FormatDuration(options.duration), ")"));
  }
  return absl::OkStatus();
}

LeaseFence::LeaseFence(KubeClient* client, LeaseFenceOptions options, std::function<void()> on_lost)
    : client_(client), options_(std::move(options)), on_lost_(std::move(on_lost)) {}

LeaseFence::~LeaseFence() { Stop(); }

ResourceRef LeaseFence::Ref() const {
  return {"coordination.k8s.io", "v1", "leases", options_.namespace_name, options_.name};
}

nlohmann::json LeaseFence::Spec(const nlohmann::json& current, absl::Time now,
                                bool takeover) const {
  nlohmann::json spec = current.is_object() ? current : nlohmann::json::object();
  spec["holderIdentity"] = options_.identity;
  spec["leaseDurationSeconds"] = absl::ToInt64Seconds(options_.duration);
  spec["renewTime"] = MicroTime(now);
  if (takeover) {
    spec["acquireTime"] = MicroTime(now);
    const int64_t transitions = IntField(spec, "leaseTransitions", 0);
    spec["leaseTransitions"] = current.is_object() ? transitions + 1 : transitions;
  }
  return spec;
}

absl::StatusOr<bool> LeaseFence::TryAcquireOrRenew() {
  // The fence counts from the moment the request is sent, not when it is answered.
  const absl::Time now = options_.clock->Now();
  absl::StatusOr<nlohmann::json> current = client_->Get(Ref(), &stop_);
  if (!current.ok() && current.status().code() == absl::StatusCode::kNotFound) {
    nlohmann::json lease = {
        {"apiVersion", "coordination.k8s.io/v1"},
        {"kind", "Lease"},
        {"metadata", {{"name", options_.name}, {"namespace", options_.namespace_name}}},
        {"spec", Spec(nlohmann::json(), now, /*takeover=*/true)}};
    absl::StatusOr<nlohmann::json> created = client_->Create(Ref(), lease, &stop_);
    if (!created.ok()) {
      if (created.status().code() == absl::StatusCode::kAlreadyExists) return false;
      return created.status();
    }
    held_until_us_.store(absl::ToUnixMicros(now + options_.renew_deadline));
    return true;
  }
  if (!current.ok()) return current.status();
  const nlohmann::json spec = current->value("spec", nlohmann::json::object());
  const std::string holder = StringAt(spec, {"holderIdentity"});
  if (!holder.empty() && holder != options_.identity) {
    // Someone else's: this replica stops writing at once, and may take the Lease over only
    // once it has seen it unchanged for a whole lease duration.
    held_until_us_.store(0);
    const std::string record = spec.dump();
    if (record != observed_record_) {
      observed_record_ = record;
      observed_at_ = now;
    }
    const absl::Duration duration = absl::Seconds(
        IntField(spec, "leaseDurationSeconds", absl::ToInt64Seconds(options_.duration)));
    if (now < observed_at_ + duration) return false;
  }
  nlohmann::json updated = *current;
  updated["spec"] = Spec(spec, now, /*takeover=*/holder != options_.identity);
  absl::StatusOr<nlohmann::json> written = client_->Update(Ref(), updated, &stop_);
  if (!written.ok()) {
    if (written.status().code() == absl::StatusCode::kAborted) return false;
    return written.status();
  }
  if (holder != options_.identity) {
    common::Log(common::LogLevel::kInfo, "lease acquired",
                {{"lease", absl::StrCat(options_.namespace_name, "/", options_.name)},
                 {"identity", options_.identity},
                 {"previous_holder", holder}});
  }
  observed_record_.clear();
  held_until_us_.store(absl::ToUnixMicros(now + options_.renew_deadline));
  return true;
}

absl::Status LeaseFence::Acquire(Cancellation& cancel) {
  while (true) {
    absl::StatusOr<bool> held = TryAcquireOrRenew();
    if (held.ok() && *held) return absl::OkStatus();
    if (!held.ok()) {
      if (held.status().code() == absl::StatusCode::kPermissionDenied) {
        return absl::PermissionDeniedError(absl::StrCat(
            "lease ", options_.namespace_name, "/", options_.name, ": ", held.status().message()));
      }
      common::Log(common::LogLevel::kWarning, "lease not acquired; retrying",
                  {{"lease", absl::StrCat(options_.namespace_name, "/", options_.name)},
                   {"error", held.status().ToString()}});
    }
    if (!cancel.SleepFor(*options_.clock, options_.retry_period)) {
      return absl::CancelledError(absl::StrCat("lease ", options_.namespace_name, "/",
                                               options_.name, ": stopped while waiting"));
    }
  }
}

void LeaseFence::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void LeaseFence::Loop() {
  while (stop_.SleepFor(*options_.clock, options_.retry_period)) {
    absl::StatusOr<bool> renewed = TryAcquireOrRenew();
    if (!renewed.ok()) {
      common::Log(common::LogLevel::kWarning, "lease renewal failed",
                  {{"lease", absl::StrCat(options_.namespace_name, "/", options_.name)},
                   {"error", renewed.status().ToString()}});
    }
    if (!held() && !stop_.cancelled()) {
      held_until_us_.store(0);
      common::Log(common::LogLevel::kError, "lease lost: no more writes",
                  {{"lease", absl::StrCat(options_.namespace_name, "/", options_.name)},
                   {"identity", options_.identity}});
      if (on_lost_) on_lost_();
      return;
    }
  }
}

absl::Status LeaseFence::Check() const {
  const int64_t until = held_until_us_.load();
  if (until != 0 && absl::ToUnixMicros(options_.clock->Now()) < until) return absl::OkStatus();
  return absl::UnavailableError(absl::StrCat(
      "lease ", options_.namespace_name, "/", options_.name, " is not held by this replica (",
      options_.identity,
      "); another replica may be the writer, or the API server could not be reached to "
      "renew it"));
}

void LeaseFence::Stop() {
  stop_.Cancel();
  if (thread_.joinable()) thread_.join();
}

absl::Status LeaseFence::Release() {
  Stop();
  if (!held()) return absl::OkStatus();
  held_until_us_.store(0);
  // The stop flag cancels requests; the release runs on a fresh one.
  Cancellation release;
  ASSIGN_OR_RETURN(nlohmann::json current, client_->Get(Ref(), &release));
  nlohmann::json& spec = current["spec"];
  if (StringAt(spec, {"holderIdentity"}) != options_.identity) return absl::OkStatus();
  spec["holderIdentity"] = "";
  spec["leaseDurationSeconds"] = 1;
  spec["renewTime"] = MicroTime(options_.clock->Now());
  return client_->Update(Ref(), current, &release).status();
}

}  // namespace credledger::kubebridge
