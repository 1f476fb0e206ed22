#include "test/kubeapi/object_rules.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "test/kubeapi/encoding.h"
#include "test/kubeapi/group_resource.h"
#include "test/kubeapi/json_util.h"
#include "test/kubeapi/kube_status.h"
#include "test/kubeapi/kube_time.h"
#include "test/kubeapi/names.h"

namespace credledger::kubeapi {
namespace {

bool TracksGeneration(const ResourceInfo& info) {
  return info.custom || info.group == kCrdGroup;
}

bool IsKind(const ResourceInfo& info, const char* group, const char* kind) {
  return info.group == group && info.kind == kind;
}

absl::Status Invalid(const WriteContext& ctx, const std::string& name, FieldCause cause) {
  return InvalidError(ctx.resource->kind, ctx.resource->group, name, {std::move(cause)});
}

std::string Quoted(const std::string& s) { return nlohmann::json(s).dump(); }

// Checks the body is an object with the URL's kind and apiVersion.
absl::Status CheckTypeMeta(const WriteContext& ctx, const nlohmann::json& body) {
  if (!body.is_object()) return BadRequestError("the request body must be a JSON object");
  std::string kind = StringField(body, "kind");
  std::string api_version = StringField(body, "apiVersion");
  if (kind.empty()) {
    return BadRequestError(absl::StrCat("Object 'Kind' is missing in '", body.dump(), "'"));
  }
  if (api_version.empty()) {
    return BadRequestError(absl::StrCat("Object 'apiVersion' is missing in '", body.dump(), "'"));
  }
  if (!ctx.resource->discoverable) return absl::OkStatus();  // kind unknown to the server
  std::string name = MetadataString(body, "name");
  if (kind != ctx.resource->kind) {
    return Invalid(ctx, name, {"FieldValueInvalid", "kind",
                               absl::StrCat("Invalid value: ", Quoted(kind), ": must be ",
                                            ctx.resource->kind)});
  }
  std::string want = ctx.resource->ApiVersion(ctx.version);
  if (api_version != want) {
    return Invalid(ctx, name, {"FieldValueInvalid", "apiVersion",
                               absl::StrCat("Invalid value: ", Quoted(api_version),
                                            ": must be ", want)});
  }
  return absl::OkStatus();
}

// Sets or checks metadata.namespace against the URL.
absl::Status ApplyNamespace(const WriteContext& ctx, nlohmann::json& meta) {
  std::string ns = StringField(meta, "namespace");
  if (!ctx.resource->namespaced) {
    meta.erase("namespace");
    return absl::OkStatus();
  }
  if (!ns.empty() && ns != ctx.namespace_name) {
    return BadRequestError(
        "the namespace of the provided object does not match the namespace sent on the request");
  }
  meta["namespace"] = ctx.namespace_name;
  return absl::OkStatus();
}

absl::Status ValidateName(const WriteContext& ctx, const std::string& name) {
  const ResourceInfo& info = *ctx.resource;
  if (info.group == "" && info.resource == "namespaces") {
    if (IsDnsLabel(name)) return absl::OkStatus();
    return Invalid(ctx, name, {"FieldValueInvalid", "metadata.name",
                               absl::StrCat("Invalid value: ", Quoted(name), ": ",
                                            DnsLabelErrorMessage())});
  }
  if (info.group == kRbacGroup) {
    for (const char* bad : {"/", "%"}) {
      if (name.find(bad) != std::string::npos) {
        return Invalid(ctx, name, {"FieldValueInvalid", "metadata.name",
                                   absl::StrCat("Invalid value: ", Quoted(name),
                                                ": may not contain '", bad, "'")});
      }
    }
    if (name == "." || name == "..") {
      return Invalid(ctx, name, {"FieldValueInvalid", "metadata.name",
                                 absl::StrCat("Invalid value: ", Quoted(name),
                                              ": may not be '", name, "'")});
    }
    return absl::OkStatus();
  }
  if (IsDnsSubdomain(name)) return absl::OkStatus();
  return Invalid(ctx, name, {"FieldValueInvalid", "metadata.name",
                             absl::StrCat("Invalid value: ", Quoted(name), ": ",
                                          DnsSubdomainErrorMessage())});
}

// Secret rules shared by create and update: type default, stringData merge, base64 data.
absl::Status NormalizeSecret(nlohmann::json& obj) {
  if (StringField(obj, "type").empty()) obj["type"] = "Opaque";
  const nlohmann::json& string_data = Field(obj, "stringData");
  if (string_data.is_object()) {
    for (const auto& [key, value] : string_data.items()) {
      if (value.is_string()) obj["data"][key] = Base64Encode(value.get<std::string>());
    }
  }
  obj.erase("stringData");
  const nlohmann::json& data = Field(obj, "data");
  if (data.is_null()) return absl::OkStatus();
  if (!data.is_object()) {
    return BadRequestError("Secret in version \"v1\" cannot be handled as a Secret: data must be "
                           "an object");
  }
  for (const auto& [key, value] : data.items()) {
    if (!value.is_string() || !Base64Decode(value.get<std::string>())) {
      return BadRequestError(absl::StrCat("Secret in version \"v1\" cannot be handled as a "
                                          "Secret: illegal base64 data in data[",
                                          Quoted(key), "]"));
    }
  }
  return absl::OkStatus();
}

// CRD rules: name must be <plural>.<group>; status reports the names as accepted.
absl::Status PrepareCrd(const WriteContext& ctx, nlohmann::json& obj) {
  const nlohmann::json& spec = Field(obj, "spec");
  std::string want = absl::StrCat(StringField(Field(spec, "names"), "plural"), ".",
                                  StringField(spec, "group"));
  std::string name = MetadataString(obj, "name");
  if (name != want) {
    return Invalid(ctx, name, {"FieldValueInvalid", "metadata.name",
                               absl::StrCat("Invalid value: ", Quoted(name),
                                            ": must be spec.names.plural+\".\"+spec.group")});
  }
  std::string now = FormatKubeTime(ctx.now);
  nlohmann::json stored_versions = nlohmann::json::array();
  const nlohmann::json& versions = Field(spec, "versions");
  for (const nlohmann::json& v : versions.is_array() ? versions : nlohmann::json::array()) {
    const nlohmann::json& storage = Field(v, "storage");
    if (storage.is_boolean() && storage.get<bool>()) stored_versions.push_back(StringField(v, "name"));
  }
  obj["status"] = {
      {"acceptedNames", Field(spec, "names")},
      {"storedVersions", stored_versions},
      {"conditions",
       {{{"type", "NamesAccepted"}, {"status", "True"}, {"reason", "NoConflicts"},
         {"message", "no conflicts found"}, {"lastTransitionTime", now}},
        {{"type", "Established"}, {"status", "True"}, {"reason", "InitialNamesAccepted"},
         {"message", "the initial names have been accepted"}, {"lastTransitionTime", now}}}}};
  return absl::OkStatus();
}

// Everything outside metadata and status: a change here bumps metadata.generation.
nlohmann::json SpecPart(nlohmann::json obj) {
  obj.erase("metadata");
  obj.erase("status");
  return obj;
}

int64_t Generation(const nlohmann::json& obj) {
  const nlohmann::json& g = Field(Metadata(obj), "generation");
  return g.is_number_integer() ? g.get<int64_t>() : 0;
}

bool HasFinalizers(const nlohmann::json& obj) {
  const nlohmann::json& f = Field(Metadata(obj), "finalizers");
  return f.is_array() && !f.empty();
}

// Rules for data of immutable Secrets/ConfigMaps and the Secret type.
absl::Status CheckImmutableFields(const WriteContext& ctx, const std::string& name,
                                  const nlohmann::json& current, const nlohmann::json& next) {
  const ResourceInfo& info = *ctx.resource;
  bool secret = IsKind(info, "", "Secret");
  if (!secret && !IsKind(info, "", "ConfigMap")) return absl::OkStatus();
  if (secret && StringField(current, "type") != StringField(next, "type")) {
    return Invalid(ctx, name, {"FieldValueInvalid", "type",
                               absl::StrCat("Invalid value: ", Quoted(StringField(next, "type")),
                                            ": field is immutable")});
  }
  const nlohmann::json& immutable = Field(current, "immutable");
  if (!immutable.is_boolean() || !immutable.get<bool>()) return absl::OkStatus();
  for (const char* field : {"data", "binaryData", "immutable"}) {
    if (Field(current, field) != Field(next, field)) {
      return Invalid(ctx, name, {"FieldValueForbidden", field,
                                 "Forbidden: field is immutable when `immutable` is set"});
    }
  }
  return absl::OkStatus();
}

Mutation Replace(nlohmann::json object) { return {Mutation::Kind::kReplace, std::move(object)}; }

}  // namespace

absl::StatusOr<nlohmann::json> PrepareCreate(const WriteContext& ctx, nlohmann::json body) {
  RETURN_IF_ERROR(CheckTypeMeta(ctx, body));
  if (!body["metadata"].is_object()) body["metadata"] = nlohmann::json::object();
  nlohmann::json& meta = body["metadata"];
  RETURN_IF_ERROR(ApplyNamespace(ctx, meta));
  std::string name = StringField(meta, "name");
  if (name.empty() && !StringField(meta, "generateName").empty()) {
    name = StringField(meta, "generateName") + ctx.random_suffix;
    meta["name"] = name;
  }
  if (name.empty()) {
    return Invalid(ctx, "", {"FieldValueRequired", "metadata.name",
                             "Required value: name or generateName is required"});
  }
  RETURN_IF_ERROR(ValidateName(ctx, name));
  for (const char* field : {"resourceVersion", "deletionTimestamp", "deletionGracePeriodSeconds",
                            "managedFields", "generation", "selfLink"}) {
    meta.erase(field);
  }
  meta["uid"] = ctx.new_uid;
  meta["creationTimestamp"] = FormatKubeTime(ctx.now);
  const ResourceInfo& info = *ctx.resource;
  if (TracksGeneration(info)) meta["generation"] = 1;
  // A kubelet registers its Node with status (capacity, allocatable) in the create body.
  if (info.HasSubresource("status") && !IsKind(info, "", "Node")) body.erase("status");
  if (IsKind(info, "", "Secret")) RETURN_IF_ERROR(NormalizeSecret(body));
  if (IsKind(info, "", "Namespace")) body["status"] = {{"phase", "Active"}};
  if (IsKind(info, kCrdGroup, "CustomResourceDefinition")) RETURN_IF_ERROR(PrepareCrd(ctx, body));
  return body;
}

absl::StatusOr<Mutation> PrepareUpdate(const WriteContext& ctx, const std::string& name,
                                       const nlohmann::json& current, nlohmann::json body,
                                       bool status_subresource) {
  RETURN_IF_ERROR(CheckTypeMeta(ctx, body));
  if (!body["metadata"].is_object()) body["metadata"] = nlohmann::json::object();
  nlohmann::json& meta = body["metadata"];
  std::string body_name = StringField(meta, "name");
  if (body_name.empty()) meta["name"] = name;
  if (!body_name.empty() && body_name != name) {
    return BadRequestError(absl::StrCat("the name of the object (", body_name,
                                        ") does not match the name on the URL (", name, ")"));
  }
  RETURN_IF_ERROR(ApplyNamespace(ctx, meta));
  const GroupResource gr = ctx.resource->gr();
  const nlohmann::json& cur_meta = Metadata(current);
  std::string rv = StringField(meta, "resourceVersion");
  std::string cur_rv = StringField(cur_meta, "resourceVersion");
  if (!rv.empty() && rv != cur_rv) return ConflictError(gr, name, kObjectModifiedMessage);
  std::string uid = StringField(meta, "uid");
  if (!uid.empty() && uid != StringField(cur_meta, "uid")) {
    return ConflictError(gr, name,
                         absl::StrCat("Precondition failed: UID in precondition: ", uid,
                                      ", UID in object meta: ", StringField(cur_meta, "uid")));
  }

  nlohmann::json next;
  if (status_subresource) {
    next = current;
    if (body.contains("status")) next["status"] = body["status"];
    else next.erase("status");
  } else {
    next = std::move(body);
    for (const char* field : {"uid", "creationTimestamp", "deletionTimestamp",
                              "deletionGracePeriodSeconds", "generation"}) {
      if (cur_meta.contains(field)) next["metadata"][field] = cur_meta[field];
      else next["metadata"].erase(field);
    }
    if (ctx.resource->HasSubresource("status")) {
      if (current.contains("status")) next["status"] = current["status"];
      else next.erase("status");
    }
    if (IsKind(*ctx.resource, "", "Secret")) RETURN_IF_ERROR(NormalizeSecret(next));
    RETURN_IF_ERROR(CheckImmutableFields(ctx, name, current, next));
    if (TracksGeneration(*ctx.resource) && SpecPart(current) != SpecPart(next)) {
      next["metadata"]["generation"] = Generation(current) + 1;
    }
  }
  next["metadata"]["resourceVersion"] = cur_rv;
  if (!MetadataString(next, "deletionTimestamp").empty() && !HasFinalizers(next)) {
    return Mutation{Mutation::Kind::kDelete, {}};
  }
  if (next == current) return Mutation{Mutation::Kind::kKeep, {}};
  return Replace(std::move(next));
}

absl::StatusOr<Mutation> PrepareDelete(const WriteContext& ctx, const nlohmann::json& current,
                                       const nlohmann::json& options) {
  const GroupResource gr = ctx.resource->gr();
  std::string name = MetadataString(current, "name");
  const nlohmann::json& pre = Field(options, "preconditions");
  std::string uid = StringField(pre, "uid");
  std::string cur_uid = MetadataString(current, "uid");
  if (!uid.empty() && uid != cur_uid) {
    return ConflictError(gr, name,
                         absl::StrCat("Precondition failed: UID in precondition: ", uid,
                                      ", UID in object meta: ", cur_uid));
  }
  std::string rv = StringField(pre, "resourceVersion");
  std::string cur_rv = MetadataString(current, "resourceVersion");
  if (!rv.empty() && rv != cur_rv) {
    return ConflictError(gr, name,
                         absl::StrCat("Precondition failed: ResourceVersion in precondition: ",
                                      rv, ", ResourceVersion in object meta: ", cur_rv));
  }
  if (!HasFinalizers(current)) return Mutation{Mutation::Kind::kDelete, {}};
  if (!MetadataString(current, "deletionTimestamp").empty()) {
    return Mutation{Mutation::Kind::kKeep, {}};
  }
  nlohmann::json next = current;
  next["metadata"]["deletionTimestamp"] = FormatKubeTime(ctx.now);
  next["metadata"]["deletionGracePeriodSeconds"] = 0;
  if (TracksGeneration(*ctx.resource)) next["metadata"]["generation"] = Generation(current) + 1;
  return Replace(std::move(next));
}

nlohmann::json ForVersion(const ResourceInfo& info, const std::string& version,
                          nlohmann::json object) {
  if (!version.empty()) object["apiVersion"] = info.ApiVersion(version);
  if (info.discoverable) object["kind"] = info.kind;
  return object;
}

}  // namespace credledger::kubeapi
