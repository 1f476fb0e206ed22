#include "test/kubeapi/resource_handlers.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "test/kubeapi/field_selector.h"
#include "test/kubeapi/group_resource.h"
#include "test/kubeapi/json_util.h"
#include "test/kubeapi/kube_status.h"
#include "test/kubeapi/label_selector.h"
#include "test/kubeapi/list_pages.h"
#include "test/kubeapi/managed_fields.h"
#include "test/kubeapi/object_rules.h"
#include "test/kubeapi/random_ids.h"
#include "test/kubeapi/server_side_apply.h"
#include "test/kubeapi/table_printer.h"

namespace credledger::kubeapi {
namespace {

bool IsCrd(const ResourceInfo& info) {
  return info.group == kCrdGroup && info.resource == "customresourcedefinitions";
}

bool IsNamespace(const ResourceInfo& info) {
  return info.group.empty() && info.resource == "namespaces";
}

// 5 characters from Kubernetes' generateName alphabet (no vowels, no confusable digits).
std::string RandomSuffix() {
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string bytes = RandomBytes(5);
  std::string out;
  for (char b : bytes) out.push_back(kAlphabet[static_cast<uint8_t>(b) % (sizeof(kAlphabet) - 1)]);
  return out;
}

WriteContext MakeWriteContext(ServerContext& ctx, const ResourceRequest& req) {
  return {&req.resource, req.info.version, req.StoreNamespace(), ctx.config.clock->Now(),
          NewUuidV4(), RandomSuffix()};
}

absl::StatusOr<nlohmann::json> ParseBody(const HttpRequest& http) {
  nlohmann::json body = nlohmann::json::parse(http.body, nullptr, false);
  if (body.is_discarded()) {
    return BadRequestError("the request body is not valid JSON");
  }
  return body;
}

// The object as served: for built-in kinds in lists, without kind/apiVersion.
nlohmann::json Served(const ResourceRequest& req, const nlohmann::json& object) {
  return ForVersion(req.resource, req.info.version, object);
}

void AfterWrite(ServerContext& ctx, const ResourceInfo& resource, const MutationResult& result) {
  if (!IsCrd(resource) || !result.changed) return;
  if (result.deleted) {
    ctx.registry.UnregisterCrd(*result.object);
  } else {
    ctx.registry.RegisterCrd(*result.object).IgnoreError();
  }
}

// The manager of a write that is not an apply (managed_fields.h).
std::string UpdateManagerOf(const ResourceRequest& req) {
  return UpdateManager(QueryParam(req.http->params, "fieldManager"), req.http->user_agent);
}

// Stores `object`, prepared for creation, as a new object of the request's resource.
absl::StatusOr<ObjectPtr> StoreNew(ServerContext& ctx, const ResourceRequest& req,
                                   nlohmann::json object) {
  if (IsCrd(req.resource)) {
    absl::Status registered = ResourceRegistry().RegisterCrd(object);  // validation only
    if (!registered.ok()) {
      return InvalidError(req.resource.kind, req.resource.group, MetadataString(object, "name"),
                          {{"FieldValueRequired", "spec", std::string(registered.message())}});
    }
  }
  std::string ns = req.StoreNamespace();
  if (!ns.empty() && ctx.config.require_namespace) {
    absl::StatusOr<ObjectPtr> namespace_object = ctx.store.Get({"", "namespaces"}, "", ns);
    if (!namespace_object.ok()) return namespace_object.status();
  }
  if (!req.resource.discoverable) {
    ctx.registry.LearnKind(req.resource.group, req.resource.resource, StringField(object, "kind"));
  }
  ASSIGN_OR_RETURN(ObjectPtr stored, ctx.store.Create(req.resource.gr(), ns, std::move(object)));
  if (IsCrd(req.resource)) ctx.registry.RegisterCrd(*stored).IgnoreError();
  return stored;
}

absl::StatusOr<HttpResponse> Create(ServerContext& ctx, const ResourceRequest& req) {
  ASSIGN_OR_RETURN(nlohmann::json body, ParseBody(*req.http));
  WriteContext wctx = MakeWriteContext(ctx, req);
  ASSIGN_OR_RETURN(nlohmann::json object, PrepareCreate(wctx, std::move(body)));
  RecordUpdate(nlohmann::json::object(), object, UpdateManagerOf(req),
               req.resource.ApiVersion(req.info.version), wctx.now);
  ASSIGN_OR_RETURN(ObjectPtr stored, StoreNew(ctx, req, std::move(object)));
  return JsonResponse(201, Served(req, *stored));
}

absl::StatusOr<HttpResponse> Get(ServerContext& ctx, const ResourceRequest& req) {
  ASSIGN_OR_RETURN(ObjectPtr object,
                   ctx.store.Get(req.resource.gr(), req.StoreNamespace(), req.info.name));
  if (WantsTable(req.http->accept)) {
    return JsonResponse(200, ToTable(req.resource, {object}, ctx.store.CurrentResourceVersion(),
                                     QueryParam(req.http->params, "includeObject"),
                                     ctx.config.clock->Now()));
  }
  return JsonResponse(200, Served(req, *object));
}

// The objects of the request's collection matching its label and field selectors.
absl::StatusOr<ListSnapshot> Select(ServerContext& ctx, const ResourceRequest& req) {
  ASSIGN_OR_RETURN(LabelSelector labels,
                   LabelSelector::Parse(QueryParam(req.http->params, "labelSelector")));
  ASSIGN_OR_RETURN(FieldSelector fields,
                   FieldSelector::Parse(QueryParam(req.http->params, "fieldSelector")));
  ListSnapshot snapshot = ctx.store.List(req.resource.gr(), req.StoreNamespace());
  std::vector<ObjectPtr> kept;
  for (ObjectPtr& item : snapshot.items) {
    if (labels.Matches(Field(Metadata(*item), "labels")) && fields.Matches(*item)) {
      kept.push_back(std::move(item));
    }
  }
  snapshot.items = std::move(kept);
  return snapshot;
}

nlohmann::json ListBody(const ResourceRequest& req, const ListSnapshot& snapshot) {
  nlohmann::json items = nlohmann::json::array();
  for (const ObjectPtr& item : snapshot.items) {
    nlohmann::json served = Served(req, *item);
    if (!req.resource.custom) {
      served.erase("kind");
      served.erase("apiVersion");
    }
    items.push_back(std::move(served));
  }
  return {{"kind", absl::StrCat(req.resource.kind, "List")},
          {"apiVersion", req.resource.ApiVersion(req.info.version)},
          {"metadata", {{"resourceVersion", absl::StrCat(snapshot.resource_version)}}},
          {"items", items}};
}

// The page a list request asks for: everything without `limit` and `continue`, else the
// page of ListPages (list_pages.h).
absl::StatusOr<ListPage> SelectPage(ServerContext& ctx, const ResourceRequest& req) {
  const std::string limit_text = QueryParam(req.http->params, "limit");
  int64_t limit = 0;
  if (!limit_text.empty() && (!absl::SimpleAtoi(limit_text, &limit) || limit < 0)) {
    return BadRequestError(absl::StrCat("invalid limit \"", limit_text, "\""));
  }
  const std::string token = QueryParam(req.http->params, "continue");
  const std::string collection = absl::StrCat(req.resource.gr().group, "/",
                                              req.resource.gr().resource, "/",
                                              req.StoreNamespace());
  if (!token.empty()) return ctx.pages.Next(token, collection, limit);
  ASSIGN_OR_RETURN(ListSnapshot snapshot, Select(ctx, req));
  if (limit == 0) return ListPage{std::move(snapshot.items), snapshot.resource_version, "", 0};
  return ctx.pages.First(std::move(snapshot), collection, limit);
}

absl::StatusOr<HttpResponse> List(ServerContext& ctx, const ResourceRequest& req) {
  ASSIGN_OR_RETURN(ListPage page, SelectPage(ctx, req));
  nlohmann::json body =
      WantsTable(req.http->accept)
          ? ToTable(req.resource, page.items, page.resource_version,
                    QueryParam(req.http->params, "includeObject"), ctx.config.clock->Now())
          : ListBody(req, ListSnapshot{std::move(page.items), page.resource_version});
  if (!page.continue_token.empty()) {
    body["metadata"]["continue"] = page.continue_token;
    // Like kube-apiserver, the count only when no selector filtered the list.
    if (QueryParam(req.http->params, "labelSelector").empty() &&
        QueryParam(req.http->params, "fieldSelector").empty()) {
      body["metadata"]["remainingItemCount"] = page.remaining;
    }
  }
  return JsonResponse(200, body);
}

// Applies a PATCH body of `content_type` to `current`.
absl::StatusOr<nlohmann::json> ApplyPatch(const std::string& content_type,
                                          const nlohmann::json& current,
                                          const nlohmann::json& patch) {
  std::string type = content_type.substr(0, content_type.find(';'));
  if (type == "application/merge-patch+json" || type == "application/strategic-merge-patch+json") {
    nlohmann::json patched = current;
    patched.merge_patch(patch);
    return patched;
  }
  if (type == "application/json-patch+json") {
    try {
      return current.patch(patch);
    } catch (const nlohmann::json::exception& e) {
      return KubeStatusError(422, "Invalid", absl::StrCat("the JSON patch failed: ", e.what()),
                             nullptr);
    }
  }
  return UnsupportedMediaTypeError(content_type);
}

absl::StatusOr<HttpResponse> Update(ServerContext& ctx, const ResourceRequest& req,
                                    bool is_patch) {
  if (is_patch) RETURN_IF_ERROR(CheckPatchOptions(*req.http));
  ASSIGN_OR_RETURN(nlohmann::json body, ParseBody(*req.http));
  WriteContext wctx = MakeWriteContext(ctx, req);
  bool status = req.info.subresource == "status";
  const std::string& name = req.info.name;
  const std::string content_type = req.http->content_type;
  auto update = [&](const nlohmann::json& current) -> absl::StatusOr<Mutation> {
    nlohmann::json next = body;
    if (is_patch) {
      ASSIGN_OR_RETURN(next, ApplyPatch(content_type, current, body));
    }
    CarryManagedFields(current, next);
    ASSIGN_OR_RETURN(Mutation mutation,
                     PrepareUpdate(wctx, name, current, std::move(next), status));
    if (mutation.kind == Mutation::Kind::kReplace && !status) {
      RecordUpdate(current, mutation.object, UpdateManagerOf(req),
                   req.resource.ApiVersion(req.info.version), wctx.now);
    }
    return mutation;
  };
  ASSIGN_OR_RETURN(MutationResult result,
                   ctx.store.Mutate(req.resource.gr(), wctx.namespace_name, name, update));
  AfterWrite(ctx, req.resource, result);
  return JsonResponse(200, Served(req, *result.object));
}

// What an apply that creates its object asks besides patch: the create right, as on a real
// server.
AuthorizationAttributes CreateOnApplyAttributes(const ResourceRequest& req) {
  AuthorizationAttributes attrs;
  attrs.verb = "create";
  attrs.group = req.resource.group;
  attrs.resource = req.resource.resource;
  attrs.name = req.info.name;
  attrs.namespace_name = req.StoreNamespace();
  return attrs;
}

// Creates the object of an apply that found none. The create it needs is recorded as a
// request of the caller, with its own outcome.
absl::StatusOr<ObjectPtr> CreateOnApply(ServerContext& ctx, const ResourceRequest& req,
                                        const WriteContext& wctx, const ApplyRequest& apply) {
  const AuthorizationAttributes attrs = CreateOnApplyAttributes(req);
  if (!ctx.authorizer.Allowed(req.user, attrs)) {
    ctx.requests.Record(req.user.username, attrs, 403, /*check=*/true);
    return RbacAuthorizer::ForbiddenFor(req.user, attrs);
  }
  absl::StatusOr<ObjectPtr> created = [&]() -> absl::StatusOr<ObjectPtr> {
    ASSIGN_OR_RETURN(nlohmann::json object, PrepareCreate(wctx, apply.configuration));
    OwnAppliedObject(apply, object);
    return StoreNew(ctx, req, std::move(object));
  }();
  ctx.requests.Record(req.user.username, attrs,
                      created.ok() ? 201 : StatusToReply(created.status()).code,
                      /*check=*/true);
  return created;
}

bool HasAlreadyExistsReason(const absl::Status& status) {
  return StatusToReply(status).body.value("reason", "") == "AlreadyExists";
}

// Server-side apply (server_side_apply.h): merges into the stored object, or creates it when
// there is none; an object created or deleted meanwhile makes it try again.
absl::StatusOr<HttpResponse> Apply(ServerContext& ctx, const ResourceRequest& req) {
  if (!req.info.subresource.empty()) {
    return BadRequestError("the test API server does not apply to subresources");
  }
  const std::string& name = req.info.name;
  ASSIGN_OR_RETURN(ApplyRequest apply,
                   ParseApplyRequest(*req.http, name, req.resource.ApiVersion(req.info.version),
                                     ctx.config.clock->Now()));
  constexpr int kApplyRounds = 3;
  absl::Status last;
  for (int round = 0; round < kApplyRounds; ++round) {
    WriteContext wctx = MakeWriteContext(ctx, req);
    absl::StatusOr<MutationResult> merged = ctx.store.Mutate(
        req.resource.gr(), wctx.namespace_name, name,
        [&](const nlohmann::json& current) -> absl::StatusOr<Mutation> {
          ASSIGN_OR_RETURN(nlohmann::json next, MergeApply(current, apply));
          return PrepareUpdate(wctx, name, current, std::move(next), /*status_subresource=*/false);
        });
    if (merged.ok()) {
      AfterWrite(ctx, req.resource, *merged);
      return JsonResponse(200, Served(req, *merged->object));
    }
    if (!absl::IsNotFound(merged.status())) return merged.status();
    absl::StatusOr<ObjectPtr> created = CreateOnApply(ctx, req, wctx, apply);
    if (created.ok()) return JsonResponse(201, Served(req, **created));
    if (!HasAlreadyExistsReason(created.status())) return created.status();
    last = created.status();
  }
  return last;
}

absl::StatusOr<HttpResponse> Delete(ServerContext& ctx, const ResourceRequest& req) {
  nlohmann::json options;
  if (!req.http->body.empty()) {
    ASSIGN_OR_RETURN(options, ParseBody(*req.http));
  }
  ASSIGN_OR_RETURN(MutationResult result,
                   DeleteObject(ctx, req.resource, req.StoreNamespace(), req.info.name, options));
  if (result.deleted && !req.resource.custom && !IsCrd(req.resource)) {
    return JsonResponse(200, SuccessStatus(req.resource.gr(), req.info.name,
                                           MetadataString(*result.object, "uid")));
  }
  return JsonResponse(200, Served(req, *result.object));
}

absl::StatusOr<HttpResponse> DeleteCollection(ServerContext& ctx, const ResourceRequest& req) {
  ASSIGN_OR_RETURN(ListSnapshot snapshot, Select(ctx, req));
  ListSnapshot deleted;
  for (const ObjectPtr& item : snapshot.items) {
    absl::StatusOr<MutationResult> result =
        DeleteObject(ctx, req.resource, MetadataString(*item, "namespace"),
                     MetadataString(*item, "name"), nullptr);
    if (result.ok()) deleted.items.push_back(result->object);
  }
  deleted.resource_version = ctx.store.CurrentResourceVersion();
  return JsonResponse(200, ListBody(req, deleted));
}

absl::StatusOr<HttpResponse> Dispatch(ServerContext& ctx, const ResourceRequest& req) {
  const RequestInfo& info = req.info;
  const ResourceInfo& resource = req.resource;
  if (resource.namespaced != info.namespaced_path && !IsNamespace(resource) &&
      !(resource.namespaced && (info.verb == "list" || info.verb == "watch"))) {
    return PathNotFoundError();
  }
  if (!info.subresource.empty() && (info.subresource != "status" ||
                                    !resource.HasSubresource("status"))) {
    return PathNotFoundError();
  }
  if (resource.create_only) return MethodNotAllowedError();
  if (info.verb == "create") {
    if (info.name_from_path) return MethodNotAllowedError();
    return Create(ctx, req);
  }
  if (info.verb == "get") return Get(ctx, req);
  if (info.verb == "list") return List(ctx, req);
  if (info.verb == "update") return Update(ctx, req, /*is_patch=*/false);
  if (info.verb == "patch" && IsApplyPatch(req.http->content_type)) return Apply(ctx, req);
  if (info.verb == "patch") return Update(ctx, req, /*is_patch=*/true);
  if (!info.subresource.empty()) return MethodNotAllowedError();
  if (info.verb == "delete") return Delete(ctx, req);
  if (info.verb == "deletecollection") return DeleteCollection(ctx, req);
  return MethodNotAllowedError();
}

}  // namespace

absl::StatusOr<MutationResult> DeleteObject(ServerContext& ctx, const ResourceInfo& resource,
                                            const std::string& ns, const std::string& name,
                                            const nlohmann::json& options) {
  const WriteContext wctx{&resource, "", ns, ctx.config.clock->Now(), "", ""};
  ASSIGN_OR_RETURN(MutationResult result,
                   ctx.store.Mutate(resource.gr(), ns, name, [&](const nlohmann::json& current) {
                     return PrepareDelete(wctx, current, options);
                   }));
  if (result.deleted && IsNamespace(resource)) ctx.store.DeleteNamespaceContents(name);
  AfterWrite(ctx, resource, result);
  return result;
}

HttpResponse ServeResource(ServerContext& ctx, const ResourceRequest& req) {
  absl::StatusOr<HttpResponse> response = Dispatch(ctx, req);
  if (!response.ok()) return ErrorResponse(response.status());
  return *std::move(response);
}

}  // namespace credledger::kubeapi
