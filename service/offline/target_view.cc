#include "service/offline/target_view.h"

#include "absl/strings/str_cat.h"
#include "projections/target_state.h"

namespace credledger::service {

std::string ChartVersionSuffix(absl::string_view connection_hash,
                               absl::string_view credential_tag) {
  return absl::StrCat("-", connection_hash, "-", credential_tag);
}

std::string PhaseName(v1::TargetState::Phase phase) {
  switch (phase) {
    case v1::TargetState::PHASE_ACTIVE:
      return "Active";
    case v1::TargetState::PHASE_DELETING:
      return "Deleting";
    case v1::TargetState::PHASE_FINALIZED:
      return "Finalized";
    case v1::TargetState::PHASE_UNSPECIFIED:
    case v1::TargetState_Phase_TargetState_Phase_INT_MIN_SENTINEL_DO_NOT_USE_:
    case v1::TargetState_Phase_TargetState_Phase_INT_MAX_SENTINEL_DO_NOT_USE_:
      break;
  }
  return "Unregistered";
}

v1::Target ToTargetView(const v1::TargetState& state, absl::string_view connection_hash) {
  v1::Target view;
  view.set_namespace_(state.namespace_());
  view.set_name(state.name());
  view.set_uid(state.target_uid());
  view.set_phase(PhaseName(state.phase()));
  view.set_revoked(state.revoked());
  view.set_last_seq(state.last_seq());

  const v1::CredentialRecord* current = projections::CurrentCredential(state);
  if (current != nullptr) {
    v1::TargetCredential* c = view.mutable_current_credential();
    c->set_secret_name(current->secret().name());
    c->set_credential_tag(current->credential_tag());
    c->set_connection_hash(std::string(connection_hash));
    c->set_chart_version_suffix(ChartVersionSuffix(connection_hash, current->credential_tag()));
    *c->mutable_issued_at() = current->issued_at();
    *c->mutable_expires_at() = current->expires_at();
    *c->mutable_rotation_due_at() = current->rotation_due_at();
  }
  const std::string in_flight =
      state.has_open_attempt() ? state.open_attempt().secret().uid() : std::string();
  for (const v1::CredentialRecord& record : state.credentials()) {
    if (&record == current) continue;
    if (!in_flight.empty() && record.secret().uid() == in_flight) continue;
    view.add_older_secret_names(record.secret().name());
  }
  if (state.has_open_attempt()) {
    view.set_open_mint_attempt_id(state.open_attempt().attempt_id());
  }

  // A finalized Target has no condition (projections/target_state.h, UpdateCondition).
  if (!state.has_agent_credential_ready()) return view;
  const v1::Condition& ready = state.agent_credential_ready();
  v1::TargetCondition* condition = view.mutable_agent_credential_ready();
  condition->set_type(ready.type());
  condition->set_status(ready.status());
  condition->set_reason(ready.reason());
  condition->set_message(ready.message());
  if (ready.has_last_transition_time()) {
    *condition->mutable_last_transition_time() = ready.last_transition_time();
  }
  return view;
}

}  // namespace credledger::service
