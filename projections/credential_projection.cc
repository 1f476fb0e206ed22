#include "projections/credential_projection.h"

#include <algorithm>
#include <tuple>

#include <google/protobuf/util/message_differencer.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "projections/target_state.h"
#include "store/event_codec.h"

namespace credledger::projections {
namespace {

// Targets the credential tally counts: registered, not finalized.
bool Counted(const v1::TargetState& state) {
  return state.phase() == v1::TargetState::PHASE_ACTIVE ||
         state.phase() == v1::TargetState::PHASE_DELETING;
}

}  // namespace

void CredentialProjection::Uncount(const v1::TargetState& state) {
  if (Counted(state)) ready_.Remove(state.agent_credential_ready());
}

void CredentialProjection::Count(const v1::TargetState& state) {
  if (Counted(state)) ready_.Add(state.agent_credential_ready());
}

absl::StatusOr<std::vector<std::string>> CredentialProjection::Apply(
    const store::RecordedEvent& recorded) {
  if (recorded.seq != seq_ + 1) {
    return absl::DataLossError(absl::StrCat("credential projection at seq ", seq_,
                                            " was handed seq ", recorded.seq));
  }
  std::vector<std::string> changed;
  const bool target_stream = absl::StartsWith(recorded.stream, "target/");
  if (!target_stream && recorded.type != v1::ServiceConfigured::descriptor()->full_name()) {
    seq_ = recorded.seq;  // reports, identities, clusters: not part of this model
    return changed;
  }
  absl::StatusOr<v1::Event> event = store::EventCodec::Default().Decode(recorded);
  if (!event.ok()) return event.status();
  seq_ = recorded.seq;
  const absl::Time at = absl::FromUnixMicros(recorded.recorded_at_us);
  if (event->has_service_configured()) {
    service_ = event->service_configured();
    for (auto& [stream, state] : targets_) {
      const v1::Condition before = state.agent_credential_ready();
      Uncount(state);
      UpdateCondition(state, at, service_);
      Count(state);
      if (!google::protobuf::util::MessageDifferencer::Equals(before,
                                                              state.agent_credential_ready())) {
        changed.push_back(stream);
      }
    }
    return changed;
  }
  if (!target_stream) return changed;
  v1::TargetState& state = targets_[recorded.stream];
  Uncount(state);
  EvolveTarget(state, *event, {recorded.seq, recorded.stream_version, at}, service_);
  Count(state);
  changed.push_back(recorded.stream);
  return changed;
}

std::optional<v1::TargetState> CredentialProjection::Get(absl::string_view target_namespace,
                                                         absl::string_view name) const {
  return GetStream(TargetStream(target_namespace, name));
}

std::optional<v1::TargetState> CredentialProjection::GetStream(absl::string_view stream) const {
  auto it = targets_.find(std::string(stream));
  if (it == targets_.end()) return std::nullopt;
  return it->second;
}

std::vector<v1::TargetState> CredentialProjection::List(absl::string_view target_namespace,
                                                        bool include_finalized) const {
  std::vector<v1::TargetState> out;
  const std::string prefix =
      target_namespace.empty() ? "target/" : absl::StrCat("target/", target_namespace, "/");
  for (auto it = targets_.lower_bound(prefix);
       it != targets_.end() && absl::StartsWith(it->first, prefix); ++it) {
    if (!include_finalized && it->second.phase() == v1::TargetState::PHASE_FINALIZED) continue;
    out.push_back(it->second);
  }
  // Stream order puts "a-b/x" before "a/x" ('-' sorts before '/'); callers get namespace,
  // then name.
  std::sort(out.begin(), out.end(), [](const v1::TargetState& a, const v1::TargetState& b) {
    return std::tie(a.namespace_(), a.name()) < std::tie(b.namespace_(), b.name());
  });
  return out;
}

std::string CredentialProjection::Serialize() const {
  v1::CredentialFleetState fleet;
  *fleet.mutable_service() = service_;
  fleet.set_seq(seq_);
  for (const auto& [stream, state] : targets_) *fleet.add_targets() = state;
  return store::SerializeDeterministic(fleet);
}

absl::StatusOr<CredentialProjection> CredentialProjection::Deserialize(absl::string_view bytes) {
  v1::CredentialFleetState fleet;
  if (!fleet.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::DataLossError("credential projection snapshot does not parse");
  }
  CredentialProjection p;
  p.service_ = fleet.service();
  p.seq_ = fleet.seq();
  for (v1::TargetState& state : *fleet.mutable_targets()) {
    std::string stream = TargetStream(state.namespace_(), state.name());
    p.Count(state);
    p.targets_[stream] = std::move(state);
  }
  return p;
}

}  // namespace credledger::projections
