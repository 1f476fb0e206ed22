// Contract tests: server-side apply and field management, as the Kubernetes documentation
// ("Server-Side Apply") describes them: managedFields per manager, apply creating an absent
// object, conflicts and forcing them, shared ownership, fields an applier stops setting,
// ownership taken by updates, no-op applies, resetting managedFields, and the rights an
// apply needs.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "test/kubeapi/test_support.h"

namespace credledger::kubeapi::testing {
namespace server_side_apply_test {

const char kAccounts[] = "/api/v1/namespaces/team-a/serviceaccounts";
const char kAgent[] = "/api/v1/namespaces/team-a/serviceaccounts/agent";
const char kRoles[] = "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/roles";
const char kRole[] = "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/roles/agent";
const char kApplyType[] = "application/apply-patch+yaml";
// A field a managedFields entry owns, in fieldsV1.
const nlohmann::json kOwned = nlohmann::json::object();
// The fake clock's start, the time of every managedFields entry below.
const char kNow[] = "2026-01-01T00:00:00Z";

// An apply configuration of ServiceAccount "agent" with `labels`.
nlohmann::json Account(const nlohmann::json& labels) {
  return {{"apiVersion", "v1"},
          {"kind", "ServiceAccount"},
          {"metadata", {{"name", "agent"}, {"labels", labels}}}};
}

// An apply configuration of Role "agent" with one rule granting `verbs` on secrets.
nlohmann::json Role(const std::vector<std::string>& verbs) {
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", "Role"},
          {"metadata", {{"name", "agent"}}},
          {"rules", {{{"apiGroups", {""}}, {"resources", {"secrets"}}, {"verbs", verbs}}}}};
}

// The managedFields entry of `manager` with `operation` in `object`; null when absent.
nlohmann::json EntryOf(const nlohmann::json& object, const std::string& manager,
                       const std::string& operation) {
  for (const nlohmann::json& entry :
       object["metadata"].value("managedFields", nlohmann::json::array())) {
    if (entry["manager"] == manager && entry["operation"] == operation) return entry;
  }
  return nullptr;
}

class ServerSideApplyTest : public ApiServerTest {
 protected:
  void SetUp() override {
    ApiServerTest::SetUp();
    CreateNamespace("team-a");
  }

  // PATCH `path` with apply configuration `body` as the admin; `query` is appended as is.
  Reply Apply(const std::string& path, const nlohmann::json& body, const std::string& query) {
    return Admin().Send("PATCH", absl::StrCat(path, "?", query), body.dump(), kApplyType);
  }
  Reply ApplyAs(const std::string& manager, const std::string& path, const nlohmann::json& body,
                bool force = false) {
    return Apply(path, body, absl::StrCat("fieldManager=", manager, force ? "&force=true" : ""));
  }
  // A merge patch of `path` by field manager `manager`, as `kubectl label` sends one.
  Reply MergePatchAs(const std::string& manager, const std::string& path,
                     const nlohmann::json& patch) {
    return Admin().Patch(absl::StrCat(path, "?fieldManager=", manager), patch);
  }
};

TEST_F(ServerSideApplyTest, ApplyCreatesAnAbsentObjectOwnedByTheApplier) {
  Reply created = ApplyAs("credledger", kAgent, Account({{"app", "agent"}}));
  ASSERT_EQ(created.status, 201) << created.raw;
  EXPECT_EQ(created.body["metadata"]["labels"], (nlohmann::json{{"app", "agent"}}));
  EXPECT_TRUE(MatchesJson(created.body["metadata"]["managedFields"],
                          {{{"manager", "credledger"},
                            {"operation", "Apply"},
                            {"apiVersion", "v1"},
                            {"time", kNow},
                            {"fieldsType", "FieldsV1"},
                            {"fieldsV1", {{"f:metadata", {{"f:labels", {{"f:app", kOwned}}}}}}}}}));
  EXPECT_EQ(Admin().Get(kAgent).body, created.body);
}

TEST_F(ServerSideApplyTest, ApplyWithoutAFieldManagerIsInvalid) {
  Reply reply = Apply(kAgent, Account({{"app", "agent"}}), "force=true");
  EXPECT_EQ(reply.status, 422);
  EXPECT_TRUE(MatchesJson(
      reply.body,
      {{"kind", "Status"},
       {"apiVersion", "v1"},
       {"metadata", nlohmann::json::object()},
       {"status", "Failure"},
       {"message",
        "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required "
        "for apply patch"},
       {"reason", "Invalid"},
       {"details",
        {{"group", "meta.k8s.io"},
         {"kind", "PatchOptions"},
         {"causes",
          {{{"reason", "FieldValueRequired"},
            {"message", "Required value: is required for apply patch"},
            {"field", "fieldManager"}}}}}},
       {"code", 422}}));
  EXPECT_EQ(Admin().Get(kAgent).status, 404);
}

TEST_F(ServerSideApplyTest, ForceIsRefusedOnAPatchThatIsNotAnApply) {
  CreateServiceAccount("team-a", "agent");
  Reply reply = Admin().Patch(absl::StrCat(kAgent, "?force=true"),
                              {{"metadata", {{"labels", {{"a", "b"}}}}}});
  EXPECT_EQ(reply.status, 422);
  EXPECT_EQ(reply.body["message"],
            "PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be specified "
            "for non-apply patch");
}

TEST_F(ServerSideApplyTest, AnApplyBodyMayNotCarryManagedFields) {
  nlohmann::json body = Account({{"app", "agent"}});
  body["metadata"]["managedFields"] = {{{"manager", "someone"}}};
  Reply reply = ApplyAs("credledger", kAgent, body);
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(reply.body["message"], "metadata.managedFields must be nil");
}

TEST_F(ServerSideApplyTest, AConfigurationOfAnotherKindThanItsUrlIsInvalid) {
  nlohmann::json secret = Account({{"app", "agent"}});
  secret["kind"] = "Secret";
  EXPECT_EQ(ApplyAs("credledger", kAgent, secret).status, 422) << "when it would create";
  CreateServiceAccount("team-a", "agent");
  Reply reply = ApplyAs("credledger", kAgent, secret);
  EXPECT_EQ(reply.status, 422);
  EXPECT_EQ(reply.body["message"],
            "ServiceAccount \"agent\" is invalid: kind: Invalid value: \"Secret\": must be "
            "ServiceAccount");
  nlohmann::json kindless = Account({{"app", "agent"}});
  kindless.erase("kind");
  EXPECT_EQ(ApplyAs("credledger", kAgent, kindless).status, 400);
}

TEST_F(ServerSideApplyTest, CreatesAndUpdatesAreRecordedAsUpdatesOfTheirManager) {
  Reply created = Admin().Post(absl::StrCat(kAccounts, "?fieldManager=kubectl-create"),
                               Account({{"app", "agent"}}));
  ASSERT_EQ(created.status, 201) << created.raw;
  EXPECT_TRUE(MatchesJson(created.body["metadata"]["managedFields"],
                          {{{"manager", "kubectl-create"},
                            {"operation", "Update"},
                            {"apiVersion", "v1"},
                            {"time", kNow},
                            {"fieldsType", "FieldsV1"},
                            {"fieldsV1", {{"f:metadata", {{"f:labels", {{"f:app", kOwned}}}}}}}}}));
  // Without fieldManager the manager is the User-Agent up to its first "/".
  nlohmann::json changed = created.body;
  changed["imagePullSecrets"] = {{{"name", "registry"}}};
  Client editor = Admin();
  editor.SetUserAgent("kubectl-edit/v1.31.0 (linux/amd64) kubernetes/0a1b2c3");
  Reply updated = editor.Put(kAgent, changed);
  ASSERT_EQ(updated.status, 200) << updated.raw;
  EXPECT_EQ(EntryOf(updated.body, "kubectl-edit", "Update")["fieldsV1"],
            (nlohmann::json{{"f:imagePullSecrets", kOwned}}));
  EXPECT_EQ(EntryOf(updated.body, "kubectl-create", "Update")["fieldsV1"],
            (nlohmann::json{{"f:metadata", {{"f:labels", {{"f:app", kOwned}}}}}}));
}

TEST_F(ServerSideApplyTest, ApplyingAValueAnotherManagerSetIsAConflict) {
  ASSERT_EQ(ApplyAs("credledger", kAgent, Account({{"app", "agent"}})).status, 201);
  ASSERT_EQ(
      MergePatchAs("kubectl-label", kAgent, {{"metadata", {{"labels", {{"team", "a"}}}}}}).status,
      200);
  const int64_t rv = server_->resource_version();
  Reply reply = ApplyAs("credledger", kAgent, Account({{"app", "agent"}, {"team", "b"}}));
  EXPECT_EQ(reply.status, 409);
  const std::string manager = absl::StrCat("\"kubectl-label\" using v1 at ", kNow);
  EXPECT_TRUE(MatchesJson(
      reply.body, {{"kind", "Status"},
                   {"apiVersion", "v1"},
                   {"metadata", nlohmann::json::object()},
                   {"status", "Failure"},
                   {"message", absl::StrCat("Apply failed with 1 conflict: conflict with ", manager,
                                            ": .metadata.labels.team")},
                   {"reason", "Conflict"},
                   {"details",
                    {{"causes",
                      {{{"reason", "FieldManagerConflict"},
                        {"message", absl::StrCat("conflict with ", manager)},
                        {"field", ".metadata.labels.team"}}}}}},
                   {"code", 409}}));
  EXPECT_EQ(server_->resource_version(), rv);
  EXPECT_EQ(Admin().Get(kAgent).body["metadata"]["labels"]["team"], "a");
}

TEST_F(ServerSideApplyTest, ConflictsWithSeveralFieldsAreListedPerManager) {
  ASSERT_EQ(ApplyAs("owner", kRole, Role({"get"})).status, 201);
  ASSERT_EQ(
      MergePatchAs("kubectl-label", kRole, {{"metadata", {{"labels", {{"team", "a"}}}}}}).status,
      200);
  nlohmann::json mine = Role({"list"});
  mine["metadata"]["labels"] = {{"team", "b"}};
  Reply reply = ApplyAs("credledger", kRole, mine);
  EXPECT_EQ(reply.status, 409);
  EXPECT_EQ(reply.body["message"],
            absl::StrCat("Apply failed with 2 conflicts: conflicts with \"kubectl-label\" using "
                         "rbac.authorization.k8s.io/v1 at ",
                         kNow, ":\n- .metadata.labels.team\nconflicts with \"owner\":\n- .rules"));
  EXPECT_EQ(reply.body["details"]["causes"].size(), 2u);
}

TEST_F(ServerSideApplyTest, ForcingAConflictOverridesTheValueAndTransfersOwnership) {
  ASSERT_EQ(ApplyAs("owner", kRole, Role({"get"})).status, 201);
  Reply forced = ApplyAs("credledger", kRole, Role({"list"}), /*force=*/true);
  ASSERT_EQ(forced.status, 200) << forced.raw;
  EXPECT_EQ(forced.body["rules"][0]["verbs"], (nlohmann::json{"list"}));
  EXPECT_EQ(EntryOf(forced.body, "credledger", "Apply")["fieldsV1"],
            (nlohmann::json{{"f:rules", kOwned}}));
  EXPECT_TRUE(EntryOf(forced.body, "owner", "Apply").is_null())
      << "a manager left without fields has no entry";
  // The former owner now conflicts in turn.
  EXPECT_EQ(ApplyAs("owner", kRole, Role({"get"})).status, 409);
}

TEST_F(ServerSideApplyTest, ManagersApplyingTheSameValueShareItWithoutConflict) {
  ASSERT_EQ(ApplyAs("first", kAgent, Account({{"app", "agent"}})).status, 201);
  Reply shared = ApplyAs("second", kAgent, Account({{"app", "agent"}}));
  ASSERT_EQ(shared.status, 200) << shared.raw;
  const nlohmann::json owned = {{"f:metadata", {{"f:labels", {{"f:app", kOwned}}}}}};
  EXPECT_EQ(EntryOf(shared.body, "first", "Apply")["fieldsV1"], owned);
  EXPECT_EQ(EntryOf(shared.body, "second", "Apply")["fieldsV1"], owned);
  // Changing a shared value conflicts with the other owner.
  EXPECT_EQ(ApplyAs("second", kAgent, Account({{"app", "other"}})).status, 409);
  // An owner that stops applying the field gives it up; the other keeps it, and the value.
  Reply released = ApplyAs("second", kAgent, Account({{"tier", "web"}}));
  ASSERT_EQ(released.status, 200) << released.raw;
  EXPECT_EQ(released.body["metadata"]["labels"],
            (nlohmann::json{{"app", "agent"}, {"tier", "web"}}));
}

TEST_F(ServerSideApplyTest, FieldsTheApplierStopsSettingAreRemovedWhenNoOneElseOwnsThem) {
  ASSERT_EQ(ApplyAs("credledger", kAgent, Account({{"a", "1"}, {"b", "2"}})).status, 201);
  Reply reply = ApplyAs("credledger", kAgent, Account({{"a", "1"}}));
  ASSERT_EQ(reply.status, 200) << reply.raw;
  EXPECT_EQ(reply.body["metadata"]["labels"], (nlohmann::json{{"a", "1"}}));
  reply = ApplyAs(
      "credledger", kAgent,
      {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", "agent"}}}});
  ASSERT_EQ(reply.status, 200) << reply.raw;
  EXPECT_FALSE(reply.body["metadata"].contains("labels")) << reply.raw;
  EXPECT_FALSE(reply.body["metadata"].contains("managedFields")) << reply.raw;
}

TEST_F(ServerSideApplyTest, AnUpdateThatChangesAFieldTakesItFromTheApplier) {
  ASSERT_EQ(ApplyAs("credledger", kRole, Role({"get"})).status, 201);
  nlohmann::json live = Admin().Get(kRole).body;
  live["rules"][0]["verbs"] = {"get", "list"};
  Reply edited = Admin().Put(absl::StrCat(kRole, "?fieldManager=kubectl-edit"), live);
  ASSERT_EQ(edited.status, 200) << edited.raw;
  EXPECT_EQ(EntryOf(edited.body, "kubectl-edit", "Update")["fieldsV1"],
            (nlohmann::json{{"f:rules", kOwned}}));
  EXPECT_TRUE(EntryOf(edited.body, "credledger", "Apply").is_null());
  // The applier dropping the field now leaves it to its new owner.
  nlohmann::json without_rules = Role({});
  without_rules.erase("rules");
  without_rules["metadata"]["labels"] = {{"app", "agent"}};
  Reply applied = ApplyAs("credledger", kRole, without_rules);
  ASSERT_EQ(applied.status, 200) << applied.raw;
  EXPECT_EQ(applied.body["rules"][0]["verbs"], (nlohmann::json{"get", "list"}));
}

TEST_F(ServerSideApplyTest, FieldsOfOtherManagersSurviveAForcedApply) {
  ASSERT_EQ(ApplyAs("credledger", kAgent, Account({{"app", "agent"}})).status, 201);
  ASSERT_EQ(MergePatchAs("kubectl-label", kAgent,
                         {{"metadata",
                           {{"labels", {{"extra", "keep"}, {"app", "changed"}}},
                            {"annotations", {{"note", "mine"}}}}},
                          {"imagePullSecrets", {{{"name", "registry"}}}}})
                .status,
            200);
  Reply applied = ApplyAs("credledger", kAgent, Account({{"app", "agent"}}), /*force=*/true);
  ASSERT_EQ(applied.status, 200) << applied.raw;
  EXPECT_EQ(applied.body["metadata"]["labels"],
            (nlohmann::json{{"app", "agent"}, {"extra", "keep"}}));
  EXPECT_EQ(applied.body["metadata"]["annotations"], (nlohmann::json{{"note", "mine"}}));
  EXPECT_EQ(applied.body["imagePullSecrets"], (nlohmann::json{{{"name", "registry"}}}));
  EXPECT_EQ(EntryOf(applied.body, "kubectl-label", "Update")["fieldsV1"],
            (nlohmann::json{
                {"f:imagePullSecrets", nlohmann::json::object()},
                {"f:metadata",
                 {{"f:annotations", {{"f:note", kOwned}}}, {"f:labels", {{"f:extra", kOwned}}}}}}));
}

TEST_F(ServerSideApplyTest, AnApplyThatChangesNothingKeepsTheResourceVersionAndSendsNoEvent) {
  Reply first = ApplyAs("credledger", kAgent, Account({{"app", "agent"}}));
  ASSERT_EQ(first.status, 201);
  const std::string rv = first.body["metadata"]["resourceVersion"];
  WatchReader watch(*server_, server_->admin_token(),
                    absl::StrCat(kAccounts, "?watch=true&resourceVersion=", rv));
  clock_.Advance(absl::Minutes(5));  // a later time must not count as a change either
  Reply again = ApplyAs("credledger", kAgent, Account({{"app", "agent"}}), /*force=*/true);
  ASSERT_EQ(again.status, 200);
  EXPECT_EQ(again.body, first.body);
  // The next real change is the first event the watch sees.
  ASSERT_EQ(ApplyAs("credledger", kAgent, Account({{"app", "next"}})).status, 200);
  std::vector<nlohmann::json> events = watch.WaitForEvents(1);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events[0]["type"], "MODIFIED");
  EXPECT_EQ(events[0]["object"]["metadata"]["labels"]["app"], "next");
}

TEST_F(ServerSideApplyTest, AnEmptyEntryStripsManagedFieldsAndAnEmptyListKeepsThem) {
  ASSERT_EQ(ApplyAs("credledger", kAgent, Account({{"app", "agent"}})).status, 201);
  const std::string kJsonPatch = "application/json-patch+json";
  Reply kept = Admin().Patch(kAgent,
                             {{{"op", "replace"},
                               {"path", "/metadata/managedFields"},
                               {"value", nlohmann::json::array()}}},
                             kJsonPatch);
  ASSERT_EQ(kept.status, 200) << kept.raw;
  EXPECT_FALSE(EntryOf(kept.body, "credledger", "Apply").is_null());
  Reply stripped = Admin().Patch(kAgent,
                                 {{{"op", "replace"},
                                   {"path", "/metadata/managedFields"},
                                   {"value", nlohmann::json::array({nlohmann::json::object()})}}},
                                 kJsonPatch);
  ASSERT_EQ(stripped.status, 200) << stripped.raw;
  EXPECT_FALSE(stripped.body["metadata"].contains("managedFields")) << stripped.raw;
  EXPECT_EQ(stripped.body["metadata"]["labels"], (nlohmann::json{{"app", "agent"}}));
}

TEST_F(ServerSideApplyTest, AnApplyThatCreatesNeedsTheCreateRightBesidesPatch) {
  CreateServiceAccount("team-a", "deployer");
  const std::string token = IssueToken("team-a", "deployer");
  CreateObject(kRoles, Role({"patch"}));  // Role "agent": patch on secrets
  CreateObject("/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings",
               {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                {"kind", "RoleBinding"},
                {"metadata", {{"name", "deployer"}}},
                {"roleRef",
                 {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", "agent"}}},
                {"subjects",
                 {{{"kind", "ServiceAccount"}, {"name", "deployer"}, {"namespace", "team-a"}}}}});
  const std::string path = "/api/v1/namespaces/team-a/secrets/config";
  nlohmann::json secret = {
      {"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", {{"name", "config"}}}};
  Reply refused =
      As(token).Send("PATCH", path + "?fieldManager=deployer", secret.dump(), kApplyType);
  EXPECT_EQ(refused.status, 403);
  EXPECT_EQ(refused.body["message"],
            "secrets \"config\" is forbidden: User \"system:serviceaccount:team-a:deployer\" "
            "cannot create resource \"secrets\" in API group \"\" in the namespace \"team-a\"");
  CreateSecret("team-a", "config");
  Reply patched =
      As(token).Send("PATCH", path + "?fieldManager=deployer", secret.dump(), kApplyType);
  EXPECT_EQ(patched.status, 200) << patched.raw;
}

}  // namespace server_side_apply_test
}  // namespace credledger::kubeapi::testing
