// Field management of the test API server (docs/testing.md, "Server-side apply"): which
// manager owns which field of an object, kept in metadata.managedFields as kube-apiserver
// keeps it (manager, operation Apply or Update, apiVersion, time, fieldsType FieldsV1 and
// fieldsV1 with "f:<name>" keys), and the bookkeeping of writes that are not applies.
//
// Fields are tracked at this granularity: each key of metadata.labels and
// metadata.annotations; metadata.ownerReferences and metadata.finalizers as a whole; every
// other top-level field except apiVersion, kind, metadata and status as a whole (so "rules",
// "subjects", "imagePullSecrets" and "spec" are atomic). A real server tracks nested
// fields and list items as well; the objects of this project's tests need no more.
//
// Thread-safety: pure functions.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace credledger::kubeapi {

// A tracked field: {"rules"}, {"metadata", "labels", "<key>"},
// {"metadata", "ownerReferences"}.
using FieldPath = std::vector<std::string>;
using FieldSet = std::set<FieldPath>;

// One entry of metadata.managedFields.
struct ManagedFieldsEntry {
  std::string manager;
  std::string operation;    // "Apply" or "Update"
  std::string api_version;  // the group/version the manager wrote with
  std::string time;         // RFC 3339 with seconds, of the entry's last change
  FieldSet fields;
};

// The tracked fields `object` sets (null values count as unset).
FieldSet TrackedFields(const nlohmann::json& object);

// The value of `path` in `object`; nullptr when unset.
const nlohmann::json* FieldValue(const nlohmann::json& object, const FieldPath& path);
// Sets `path` in `object` to `value`, creating metadata and its maps as needed.
void SetField(nlohmann::json& object, const FieldPath& path, const nlohmann::json& value);
// Removes `path` from `object`; a label or annotation map left empty goes too.
void RemoveField(nlohmann::json& object, const FieldPath& path);

// The field as the real server prints it in conflicts: ".metadata.labels.team", ".rules".
std::string FieldPathString(const FieldPath& path);

// The entries of object.metadata.managedFields. Fields of an entry are read at the
// granularity above (deeper keys count as their tracked field); entries that are not
// objects are skipped.
std::vector<ManagedFieldsEntry> ReadManagedFields(const nlohmann::json& object);
// Writes `entries` to object.metadata.managedFields, leaving out entries without fields;
// removes the key when none is left.
void WriteManagedFields(nlohmann::json& object, const std::vector<ManagedFieldsEntry>& entries);

// The manager of a write that is not an apply: the fieldManager query parameter, or else
// the User-Agent up to its first "/" (as kube-apiserver names it).
std::string UpdateManager(const std::string& field_manager, const std::string& user_agent);

// Prepares the managedFields of `next`, the state a create, update or patch is about to
// store over `current`: when the write left them out or sent an empty list, they stay as
// stored (a client unaware of them cannot clear them); anything else the client sent
// replaces them (an entry without fields, `[{}]`, clears them all).
void CarryManagedFields(const nlohmann::json& current, nlohmann::json& next);

// Records a write by `manager` (not an apply) from `before` (an empty object for a create)
// to `after`, whose managedFields hold the owners before the write: every tracked field
// the write set or changed moves to the manager's Update entry (taken from every other
// manager), and fields it removed lose all owners. The entry's time and apiVersion are
// set when its fields change.
void RecordUpdate(const nlohmann::json& before, nlohmann::json& after, const std::string& manager,
                  const std::string& api_version, absl::Time now);

}  // namespace credledger::kubeapi
