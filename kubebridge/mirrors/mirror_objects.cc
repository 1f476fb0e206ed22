#include "kubebridge/mirrors/mirror_objects.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "kubebridge/client/json_util.h"
#include "projections/allowed_namespaces.h"
#include "projections/identity_state.h"
#include "projections/mirror_naming.h"

namespace credledger::kubebridge {
namespace {

using Verdict = projections::Allowance::Verdict;

// `object[key]` when it is a JSON object, else {}; no copy is made.
const nlohmann::json& ObjectAt(const nlohmann::json& object, const char* key) {
  static const nlohmann::json* const kEmpty = new nlohmann::json(nlohmann::json::object());
  if (!object.is_object()) return *kEmpty;
  auto it = object.find(key);
  if (it == object.end() || !it->is_object()) return *kEmpty;
  return *it;
}

// Every key of `desired` is in `live` with the same value.
bool ContainsAll(const nlohmann::json& live, const nlohmann::json& desired) {
  for (auto it = desired.begin(); it != desired.end(); ++it) {
    auto found = live.find(it.key());
    if (found == live.end() || *found != it.value()) return false;
  }
  return true;
}

// The entries of `refs` (an ownerReferences array; anything else is empty), sorted.
std::vector<nlohmann::json> SortedEntries(const nlohmann::json& refs) {
  std::vector<nlohmann::json> out;
  if (refs.is_array()) out.assign(refs.begin(), refs.end());
  auto key = [](const nlohmann::json& r) {
    return std::make_tuple(StringAt(r, {"apiVersion"}), StringAt(r, {"kind"}),
                           StringAt(r, {"name"}), StringAt(r, {"uid"}), r.dump());
  };
  std::sort(out.begin(), out.end(),
            [&](const nlohmann::json& a, const nlohmann::json& b) { return key(a) < key(b); });
  return out;
}

// `live` keys that `desired` lacks, added to `desired`.
void KeepForeign(const nlohmann::json& live, nlohmann::json& desired) {
  for (auto it = live.begin(); it != live.end(); ++it) {
    if (!desired.contains(it.key())) desired[it.key()] = it.value();
  }
}

bool SameOwner(const v1::OwnerReference& a, const v1::OwnerReference& b) {
  return a.api_version() == b.api_version() && a.kind() == b.kind() && a.name() == b.name() &&
         a.uid() == b.uid();
}

// The log's record of the mirror in `entry` says exactly this.
bool RecordMatches(const v1::IdentityNamespaceState* entry, absl::string_view uid,
                   absl::string_view fingerprint, const std::vector<v1::OwnerReference>& owners) {
  if (entry == nullptr || !entry->has_mirror()) return false;
  const v1::MirrorRecord& record = entry->mirror();
  if (record.secret().uid() != uid || projections::SourceDigestOf(record) != fingerprint ||
      record.owners_size() != static_cast<int>(owners.size())) {
    return false;
  }
  for (size_t i = 0; i < owners.size(); ++i) {
    if (!SameOwner(record.owners(static_cast<int>(i)), owners[i])) return false;
  }
  return true;
}

std::string Quoted(absl::string_view ns, absl::string_view name) {
  return absl::StrCat("\"", ns, "/", name, "\"");
}

// The live Secret of `target` is a mirror of the identity: labelled so, or the one the log
// records (whatever its labels say now: the next write puts them back).
bool Ours(const v1::IdentityState& state, const MirrorNamespace& target) {
  if (target.live == nullptr) return false;
  const std::string live_uid = StringAt(*target.live, {"metadata", "uid"});
  const bool recorded = target.entry != nullptr && target.entry->has_mirror() &&
                        !live_uid.empty() && target.entry->mirror().secret().uid() == live_uid;
  return recorded || IsMirrorOf(*target.live, state.name());
}

// Plans namespace `target` (its entry may be null: a Secret with the mirror's name but no
// entry).
MirrorAction PlanNamespace(const v1::IdentityState& state, const MirrorNamespace& target,
                           const MirrorSource& source) {
  const std::string& ns = target.namespace_name;
  const v1::IdentityNamespaceState* entry = target.entry;
  const nlohmann::json* live = target.live;
  const v1::IdentitySpec& spec = state.spec();
  const std::string mirror_name = projections::MirrorSecretName(state.name());
  const std::string live_uid = live == nullptr ? "" : StringAt(*live, {"metadata", "uid"});
  const bool ours = Ours(state, target);
  std::vector<v1::OwnerReference> owners;  // of the bound objects not known to be gone
  if (entry != nullptr) {
    for (const v1::IdentityBinding& b : entry->bindings()) {
      if (!b.gone()) owners.push_back(b.owner());
    }
  }
  const bool bound = !owners.empty();
  const Verdict verdict =
      bound ? projections::EvaluateAllowed(spec, *entry).verdict : Verdict::kNotAllowed;
  // The source lives on the home cluster: only a mirror there can collide with it.
  const bool collision = spec.cluster().empty() && ns == spec.secret_ref().namespace_() &&
                         mirror_name == spec.secret_ref().name();

  MirrorAction action;
  action.namespace_name = ns;
  action.mirror_gone = MirrorGone(state, target);
  auto fail = [&](v1::MirrorFailureKind kind, std::string message) {
    action.kind = MirrorAction::Kind::kRecordFailure;
    action.failure_kind = kind;
    action.message = std::move(message);
    return action;
  };

  if (bound && verdict == Verdict::kAllowed) {
    if (collision) {
      return fail(
          v1::MIRROR_FAILURE_KIND_SOURCE_COLLISION,
          absl::StrCat("the mirror ", Quoted(ns, mirror_name), " of identity \"", state.name(),
                       "\" would be its source Secret; credledger never "
                       "writes the source: point spec.secretRef at a Secret with "
                       "another name or in another namespace"));
    }
    if (!source.found) {
      return fail(v1::MIRROR_FAILURE_KIND_SOURCE_NOT_FOUND,
                  absl::StrCat("source Secret ",
                               Quoted(spec.secret_ref().namespace_(), spec.secret_ref().name()),
                               " of identity \"", state.name(), "\" does not exist; ",
                               ours ? "the mirror is left as it is until it does"
                                    : "no mirror is written until it does"));
    }
    if (live != nullptr && !ours) {
      return fail(v1::MIRROR_FAILURE_KIND_CONFLICT,
                  absl::StrCat("Secret ", Quoted(ns, mirror_name),
                               " exists and is not a mirror of identity \"", state.name(),
                               "\"; credledger never overwrites it: rename or remove it"));
    }
    action.owners = std::move(owners);
    nlohmann::json desired =
        DesiredMirror(state.name(), ns, source.data, source.hash, action.owners);
    if (live == nullptr) {
      action.kind = MirrorAction::Kind::kCreate;
      action.object = std::move(desired);
      return action;
    }
    action.uid = live_uid;
    action.changes = MirrorChanges(*live, desired);
    if (!action.changes.empty()) {
      action.kind = MirrorAction::Kind::kUpdate;
      action.object = MergedForUpdate(*live, desired);
    } else if (!RecordMatches(entry, live_uid, source.fingerprint, action.owners)) {
      action.kind = MirrorAction::Kind::kAdopt;
    }
    return action;
  }

  if (ours && !collision && verdict != Verdict::kUnknown) {
    action.kind = MirrorAction::Kind::kDelete;
    action.uid = live_uid;
    action.deletion_reason = bound ? v1::MIRROR_DELETION_REASON_NAMESPACE_NOT_ALLOWED
                             : entry != nullptr && projections::BindingsAllGone(*entry)
                                 ? v1::MIRROR_DELETION_REASON_BOUND_OBJECTS_GONE
                                 : v1::MIRROR_DELETION_REASON_UNBOUND;
  }
  return action;
}

// A held-back namespace writes nothing this pass; what it records stays.
void HoldBack(MirrorAction& action) {
  switch (action.kind) {
    case MirrorAction::Kind::kCreate:
    case MirrorAction::Kind::kUpdate:
    case MirrorAction::Kind::kDelete: {
      MirrorAction held;
      held.namespace_name = std::move(action.namespace_name);
      held.mirror_gone = action.mirror_gone;
      held.held_back = true;
      action = std::move(held);
      return;
    }
    case MirrorAction::Kind::kNone:
    case MirrorAction::Kind::kAdopt:
    case MirrorAction::Kind::kRecordFailure:
      return;
  }
}

}  // namespace

nlohmann::json DesiredMirror(absl::string_view identity, absl::string_view ns,
                             const nlohmann::json& source_data, absl::string_view source_hash,
                             const std::vector<v1::OwnerReference>& owners) {
  nlohmann::json refs = nlohmann::json::array();
  for (const v1::OwnerReference& o : owners) {
    refs.push_back({{"apiVersion", o.api_version()},
                    {"kind", o.kind()},
                    {"name", o.name()},
                    {"uid", o.uid()}});
  }
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata",
           {{"name", projections::MirrorSecretName(identity)},
            {"namespace", std::string(ns)},
            {"labels", {{kMirroredLabel, "true"}, {kManagedLabel, "true"}}},
            {"annotations",
             {{kSourceHashAnnotation, std::string(source_hash)},
              {kIdentityAnnotation, std::string(identity)}}},
            {"ownerReferences", std::move(refs)}}},
          {"type", "Opaque"},
          {"data", source_data.is_object() ? source_data : nlohmann::json::object()}};
}

bool IsMirrorOf(const nlohmann::json& secret, absl::string_view identity) {
  return StringAt(secret, {"metadata", "labels", kMirroredLabel}) == "true" &&
         StringAt(secret, {"metadata", "labels", kManagedLabel}) == "true" &&
         StringAt(secret, {"metadata", "annotations", kIdentityAnnotation}) == identity;
}

std::vector<std::string> MirrorChanges(const nlohmann::json& live, const nlohmann::json& desired) {
  const nlohmann::json& live_meta = ObjectAt(live, "metadata");
  const nlohmann::json& desired_meta = ObjectAt(desired, "metadata");
  std::vector<std::string> changes;
  if (ObjectAt(live, "data") != ObjectAt(desired, "data")) changes.push_back(kChangedData);
  if (!ContainsAll(ObjectAt(live_meta, "labels"), ObjectAt(desired_meta, "labels"))) {
    changes.push_back(kChangedLabels);
  }
  if (!ContainsAll(ObjectAt(live_meta, "annotations"), ObjectAt(desired_meta, "annotations"))) {
    changes.push_back(kChangedAnnotations);
  }
  const nlohmann::json no_refs = nlohmann::json::array();
  if (SortedEntries(live_meta.value("ownerReferences", no_refs)) !=
      SortedEntries(desired_meta.value("ownerReferences", no_refs))) {
    changes.push_back(kChangedOwnerReferences);
  }
  return changes;
}

nlohmann::json MergedForUpdate(const nlohmann::json& live, const nlohmann::json& desired) {
  nlohmann::json merged = desired;
  nlohmann::json& meta = merged["metadata"];
  const nlohmann::json& live_meta = ObjectAt(live, "metadata");
  meta["resourceVersion"] = StringAt(live, {"metadata", "resourceVersion"});
  for (const char* key : {"labels", "annotations"}) {
    if (!meta[key].is_object()) meta[key] = nlohmann::json::object();
    KeepForeign(ObjectAt(live_meta, key), meta[key]);
  }
  return merged;
}

absl::StatusOr<SourceDigest> SourceSecretDigest(const nlohmann::json& secret,
                                                const common::FingerprintKey& key) {
  const std::string where = absl::StrCat(
      "source Secret ",
      Quoted(StringAt(secret, {"metadata", "namespace"}), StringAt(secret, {"metadata", "name"})));
  const nlohmann::json* data = nullptr;
  if (secret.is_object()) {
    auto it = secret.find("data");
    if (it != secret.end() && !it->is_null()) data = &*it;
  }
  SourceDigest digest;
  std::vector<std::pair<std::string, std::string>> decoded;
  if (data != nullptr) {
    if (!data->is_object()) {
      return absl::DataLossError(absl::StrCat(where, ": data is not an object"));
    }
    for (auto it = data->begin(); it != data->end(); ++it) {
      std::string raw;
      if (!it->is_string() || !absl::Base64Unescape(it->get<std::string>(), &raw) ||
          absl::Base64Escape(raw) != it->get<std::string>()) {
        return absl::DataLossError(
            absl::StrCat(where, ": data[\"", it.key(), "\"] is not canonical base64"));
      }
      decoded.emplace_back(it.key(), std::move(raw));
      digest.keys.push_back(it.key());
    }
  }
  std::sort(digest.keys.begin(), digest.keys.end());
  digest.hash = projections::SourceHash(decoded);
  digest.fingerprint = projections::SourceFingerprint(key, std::move(decoded));
  return digest;
}

std::vector<MirrorNamespace> MirrorNamespaces(
    const v1::IdentityState& state, const std::map<std::string, nlohmann::json>& existing) {
  std::map<std::string, const v1::IdentityNamespaceState*> entries;
  for (const v1::IdentityNamespaceState& ns : state.namespaces()) entries[ns.namespace_()] = &ns;
  for (const auto& [ns, secret] : existing) entries.emplace(ns, nullptr);
  std::vector<MirrorNamespace> out;
  out.reserve(entries.size());
  for (const auto& [ns, entry] : entries) {
    auto live = existing.find(ns);
    out.push_back({ns, entry, live == existing.end() ? nullptr : &live->second});
  }
  return out;
}

bool MirrorGone(const v1::IdentityState& state, const MirrorNamespace& target) {
  return target.entry != nullptr && target.entry->has_mirror() && !Ours(state, target);
}

MirrorAction PlanMirrorNamespace(const v1::IdentityState& state, const MirrorNamespace& target,
                                 const MirrorSource& source, bool held_back) {
  MirrorAction action = PlanNamespace(state, target, source);
  if (held_back) HoldBack(action);
  return action;
}

std::vector<MirrorAction> PlanMirrors(const v1::IdentityState& state,
                                      const std::map<std::string, nlohmann::json>& existing,
                                      const MirrorSource& source,
                                      const std::set<std::string>& held_back) {
  std::vector<MirrorAction> plan;
  for (const MirrorNamespace& target : MirrorNamespaces(state, existing)) {
    plan.push_back(
        PlanMirrorNamespace(state, target, source, held_back.count(target.namespace_name) > 0));
  }
  return plan;
}

}  // namespace credledger::kubebridge
