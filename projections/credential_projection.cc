#include "projections/credential_projection.h"

#include <google/protobuf/util/message_differencer.h>

#include <algorithm>
#include <tuple>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "projections/snapshot_items.h"
#include "projections/target_state.h"
#include "store/event_codec.h"

namespace credledger::projections {

CredentialProjection::DecodeScratch::DecodeScratch()
    : arena([this] {
        google::protobuf::ArenaOptions options;
        options.initial_block = block;
        options.initial_block_size = sizeof(block);
        return options;
      }()) {}

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
  if (working_.unbounded()) working_.Compact();
  std::vector<std::string> changed;
  RETURN_IF_ERROR(ApplyTo(recorded, &changed));
  return changed;
}

absl::Status CredentialProjection::Fold(const store::RecordedEvent& recorded) {
  working_.Unbound();
  return ApplyTo(recorded, nullptr);
}

absl::Status CredentialProjection::ApplyTo(const store::RecordedEvent& recorded,
                                           std::vector<std::string>* changed) {
  if (recorded.seq != seq_ + 1) {
    return absl::DataLossError(absl::StrCat("credential projection at seq ", seq_,
                                            " was handed seq ", recorded.seq));
  }
  const bool target_stream = absl::StartsWith(recorded.stream, "target/");
  if (!target_stream && recorded.type != v1::ServiceConfigured::descriptor()->full_name()) {
    seq_ = recorded.seq;  // reports, identities, clusters: not part of this model
    return absl::OkStatus();
  }
  if (scratch_ == nullptr) scratch_ = std::make_unique<DecodeScratch>();
  scratch_->arena.Reset();
  v1::Event* const event = google::protobuf::Arena::CreateMessage<v1::Event>(&scratch_->arena);
  RETURN_IF_ERROR(store::EventCodec::Default().DecodeInto(recorded, *event));
  seq_ = recorded.seq;
  const absl::Time at = absl::FromUnixMicros(recorded.recorded_at_us);
  if (event->has_service_configured()) {
    service_ = event->service_configured();
    for (auto& [stream, packed] : targets_) {
      v1::TargetState& state = working_.Open(packed);
      const v1::Condition before = state.agent_credential_ready();
      Uncount(state);
      UpdateCondition(state, at, service_);
      Count(state);
      if (changed != nullptr && !google::protobuf::util::MessageDifferencer::Equals(
                                    before, state.agent_credential_ready())) {
        changed->push_back(stream);
      }
    }
    return absl::OkStatus();
  }
  if (!target_stream) return absl::OkStatus();
  PackedTarget* indexed = by_stream_.Find(recorded.stream);
  v1::TargetState& state = indexed != nullptr ? working_.Open(*indexed) : Add(recorded.stream);
  Uncount(state);
  EvolveTarget(state, *event, {recorded.seq, recorded.stream_version, at}, service_);
  Count(state);
  if (changed != nullptr) changed->push_back(recorded.stream);
  return absl::OkStatus();
}

std::optional<v1::TargetState> CredentialProjection::Get(absl::string_view target_namespace,
                                                         absl::string_view name) const {
  return GetStream(TargetStream(target_namespace, name));
}

std::optional<v1::TargetState> CredentialProjection::GetStream(absl::string_view stream) const {
  const PackedTarget* packed = by_stream_.Find(stream);
  if (packed == nullptr) return std::nullopt;
  return packed->Copy();
}

v1::TargetState& CredentialProjection::Add(absl::string_view stream) {
  return working_.Open(Slot(stream));
}

CredentialProjection::PackedTarget& CredentialProjection::Slot(absl::string_view stream) {
  PackedTarget& packed = targets_[std::string(stream)];
  by_stream_.Set(stream, &packed);
  return packed;
}

std::vector<v1::TargetState> CredentialProjection::List(absl::string_view target_namespace,
                                                        bool include_finalized) const {
  std::vector<v1::TargetState> out;
  const std::string prefix =
      target_namespace.empty() ? "target/" : absl::StrCat("target/", target_namespace, "/");
  for (auto it = targets_.lower_bound(prefix);
       it != targets_.end() && absl::StartsWith(it->first, prefix); ++it) {
    v1::TargetState state = it->second.Copy();
    if (!include_finalized && state.phase() == v1::TargetState::PHASE_FINALIZED) continue;
    out.push_back(std::move(state));
  }
  // Stream order puts "a-b/x" before "a/x" ('-' sorts before '/'); callers get namespace,
  // then name.
  std::sort(out.begin(), out.end(), [](const v1::TargetState& a, const v1::TargetState& b) {
    return std::tie(a.namespace_(), a.name()) < std::tie(b.namespace_(), b.name());
  });
  return out;
}

std::string CredentialProjection::Serialize() const {
  v1::CredentialFleetState head;  // service = 1
  *head.mutable_service() = service_;
  v1::CredentialFleetState tail;  // seq = 3
  tail.set_seq(seq_);
  return WriteSnapshotItems(head, v1::CredentialFleetState::kTargetsFieldNumber, targets_, tail);
}

absl::StatusOr<CredentialProjection> CredentialProjection::Deserialize(absl::string_view bytes) {
  CredentialProjection p;
  v1::CredentialFleetState head;  // the service and seq; the Targets come one by one
  v1::TargetState state;
  const auto keep = [&p, &state](absl::string_view item) {
    if (!state.ParseFromArray(item.data(), static_cast<int>(item.size()))) return false;
    p.Count(state);
    p.Slot(TargetStream(state.namespace_(), state.name())).Keep(state, item);
    return true;
  };
  const bool parsed =
      ReadSnapshotItems(bytes, v1::CredentialFleetState::kTargetsFieldNumber, head, keep);
  if (!parsed) return absl::DataLossError("credential projection snapshot does not parse");
  p.service_ = head.service();
  p.seq_ = head.seq();
  return p;
}

}  // namespace credledger::projections
