#include "service/server/readiness.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace credledger::service {

void Readiness::AddCheck(std::string name, Check check) {
  absl::MutexLock lock(&mu_);
  checks_.push_back({std::move(name), std::move(check)});
}

void Readiness::AddGate(std::string name, std::string pending) {
  auto gate = std::make_unique<Gate>();
  gate->name = name;
  const Gate* raw = gate.get();
  absl::MutexLock lock(&mu_);
  gates_.push_back(std::move(gate));
  checks_.push_back({std::move(name), [raw, pending = std::move(pending)] {
                       return raw->open.load() ? absl::OkStatus() : absl::UnavailableError(pending);
                     }});
}

void Readiness::OpenGate(absl::string_view name) {
  absl::MutexLock lock(&mu_);
  for (const std::unique_ptr<Gate>& gate : gates_) {
    if (gate->name == name) gate->open.store(true);
  }
}

absl::Status Readiness::Evaluate() const {
  absl::MutexLock lock(&mu_);
  for (const NamedCheck& check : checks_) {
    absl::Status status = check.check();
    if (!status.ok()) {
      return absl::UnavailableError(absl::StrCat(check.name, ": ", status.message()));
    }
  }
  return absl::OkStatus();
}

void Readiness::AddNotice(std::string name, Check check) {
  absl::MutexLock lock(&mu_);
  notices_.push_back({std::move(name), std::move(check)});
}

std::vector<std::string> Readiness::Notices() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> out;
  for (const NamedCheck& notice : notices_) {
    absl::Status status = notice.check();
    if (!status.ok()) out.push_back(absl::StrCat(notice.name, ": ", status.message()));
  }
  return out;
}

}  // namespace credledger::service
