#include "projections/identity_projection.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"
#include "projections/identity_state.h"
#include "store/event_codec.h"

namespace credledger::projections {
namespace {

constexpr absl::string_view kStreamPrefix = "identity/";

}  // namespace

absl::StatusOr<std::vector<std::string>> IdentityProjection::Apply(
    const store::RecordedEvent& recorded) {
  if (recorded.seq != seq_ + 1) {
    return absl::DataLossError(
        absl::StrCat("identity projection at seq ", seq_, " was handed seq ", recorded.seq));
  }
  std::vector<std::string> changed;
  if (!absl::StartsWith(recorded.stream, kStreamPrefix)) {
    seq_ = recorded.seq;
    return changed;
  }
  absl::StatusOr<v1::Event> event = store::EventCodec::Default().Decode(recorded);
  if (!event.ok()) return event.status();
  seq_ = recorded.seq;
  const std::string name = recorded.stream.substr(kStreamPrefix.size());
  v1::IdentityState& state = identities_[name];
  // The stream names the identity even before (or without) an IdentityCreated, so that a
  // snapshot keeps every stream under its name.
  if (state.name().empty()) state.set_name(name);
  EvolveIdentity(
      state, *event,
      {recorded.seq, recorded.stream_version, absl::FromUnixMicros(recorded.recorded_at_us)});
  changed.push_back(recorded.stream);
  return changed;
}

std::optional<v1::IdentityState> IdentityProjection::GetIdentity(absl::string_view name) const {
  auto it = identities_.find(name);
  if (it == identities_.end()) return std::nullopt;
  return it->second;
}

std::optional<v1::IdentityState> IdentityProjection::Get(absl::string_view /*ns*/,
                                                         absl::string_view name) const {
  return GetIdentity(name);
}

std::optional<v1::IdentityState> IdentityProjection::GetStream(absl::string_view stream) const {
  if (!absl::ConsumePrefix(&stream, kStreamPrefix)) return std::nullopt;
  return GetIdentity(stream);
}

std::vector<v1::IdentityState> IdentityProjection::List(bool include_deleted) const {
  std::vector<v1::IdentityState> out;
  for (const auto& [name, state] : identities_) {
    if (include_deleted || state.phase() == v1::IdentityState::PHASE_ACTIVE) out.push_back(state);
  }
  return out;
}

void IdentityProjection::ForEachActive(
    const std::function<void(const v1::IdentityState&)>& visit) const {
  for (const auto& [name, state] : identities_) {
    if (state.phase() == v1::IdentityState::PHASE_ACTIVE) visit(state);
  }
}

std::string IdentityProjection::Serialize() const {
  v1::IdentityFleetState fleet;
  fleet.set_seq(seq_);
  for (const auto& [name, state] : identities_) *fleet.add_identities() = state;
  return store::SerializeDeterministic(fleet);
}

absl::StatusOr<IdentityProjection> IdentityProjection::Deserialize(absl::string_view bytes) {
  v1::IdentityFleetState fleet;
  if (!fleet.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::DataLossError("identity projection snapshot does not parse");
  }
  IdentityProjection p;
  p.seq_ = fleet.seq();
  for (v1::IdentityState& state : *fleet.mutable_identities()) {
    std::string name = state.name();
    p.identities_[std::move(name)] = std::move(state);
  }
  return p;
}

}  // namespace credledger::projections
