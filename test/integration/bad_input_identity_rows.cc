// The IdentityService rows of the bad-input table: identity and Secret names (DNS-1123
// subdomains), allowed namespaces and their label selector (label keys and values of at
// most 63 characters), and the owner references of bindings.
#include "absl/strings/str_cat.h"
#include "credledger/v1/api.pb.h"
#include "test/integration/bad_input_rpc_rows.h"

namespace credledger::testing {
namespace {

using BadKind = BadInputKind;
using BadCreateRequest = v1::CreateIdentityRequest;

// A CreateIdentityRequest (and, with the same fields, an UpdateIdentityRequest), valid but for
// what a row changes.
constexpr char kBadRpcIdentity[] = R"pb(
  request_id: "bad-identity"
  name: "aws"
  spec {
    secret_ref { namespace: "ops" name: "aws-creds" }
    allowed_namespaces {
      list: "team-a"
      selector {
        match_labels { key: "tier" value: "prod" }
        match_expressions { key: "team" operator: "In" values: "a" }
      }
    }
  })pb";
constexpr char kBadSelectorPath[] = "spec.allowed_namespaces.selector";

v1::LabelSelector& BadSelectorOf(BadCreateRequest& r) {
  return *r.mutable_spec()->mutable_allowed_namespaces()->mutable_selector();
}

BadInputRpcRow BadCreateRow(BadKind kind, void (*edit)(BadCreateRequest&), std::string field,
                            std::vector<std::string> rule) {
  return BadRpcInvalid("IdentityService/CreateIdentity", kind,
                       BadRpcBytes<BadCreateRequest>(kBadRpcIdentity, edit), std::move(field),
                       std::move(rule));
}

void AddBadCreateIdentityRows(std::vector<BadInputRpcRow>& rows) {
  rows.push_back(BadCreateRow(BadKind::kEmpty, [](BadCreateRequest& r) { r.clear_name(); }, "name",
                              {kBadRpcRequired}));
  rows.push_back(BadCreateRow(BadKind::kDnsLimit,
                              [](BadCreateRequest& r) { r.set_name(BadRpcLong(254)); }, "name",
                              {kBadRpcSubdomainTooLong}));
  rows.push_back(BadCreateRow(BadKind::kWrongCharacters,
                              [](BadCreateRequest& r) { r.set_name("Aws_Prod"); }, "name",
                              {kBadRpcNotSubdomain}));
  rows.push_back(BadCreateRow(BadKind::kWrongCharacters,
                              [](BadCreateRequest& r) { r.set_name("aws..prod"); }, "name",
                              {kBadRpcNotSubdomain}));
  rows.push_back(BadCreateRow(BadKind::kEmpty, [](BadCreateRequest& r) { r.clear_request_id(); },
                              "request_id", {kBadRpcRequired}));
  rows.push_back(BadCreateRow(BadKind::kEmpty, [](BadCreateRequest& r) { r.clear_spec(); },
                              "spec.secret_ref.namespace", {kBadRpcRequired}));
  rows.push_back(BadCreateRow(BadKind::kDnsLimit,
                              [](BadCreateRequest& r) {
                                r.mutable_spec()->mutable_secret_ref()->set_name(BadRpcLong(254));
                              },
                              "spec.secret_ref.name", {kBadRpcSubdomainTooLong}));
  rows.push_back(BadCreateRow(BadKind::kDnsLimit,
                              [](BadCreateRequest& r) {
                                r.mutable_spec()->mutable_secret_ref()->set_namespace_(
                                    BadRpcLong(64));
                              },
                              "spec.secret_ref.namespace", {kBadRpcLabelTooLong}));
  rows.push_back(BadCreateRow(
      BadKind::kEmpty,
      [](BadCreateRequest& r) { r.mutable_spec()->mutable_allowed_namespaces()->Clear(); },
      "spec.allowed_namespaces", {"write `selector: {}` to allow every namespace"}));
  rows.push_back(BadCreateRow(BadKind::kWrongCharacters,
                              [](BadCreateRequest& r) {
                                r.mutable_spec()->mutable_allowed_namespaces()->set_list(0,
                                                                                         "Team A");
                              },
                              "spec.allowed_namespaces.list[0]", {kBadRpcNotLabel}));
  rows.push_back(BadCreateRow(BadKind::kInvalidValue,
                              [](BadCreateRequest& r) {
                                r.mutable_spec()->mutable_allowed_namespaces()->add_list("team-a");
                              },
                              "spec.allowed_namespaces.list[1]", {"is listed twice"}));
  rows.push_back(BadCreateRow(BadKind::kLabelValue,
                              [](BadCreateRequest& r) {
                                BadSelectorOf(r).mutable_match_labels(0)->set_value(BadRpcLong(64));
                              },
                              absl::StrCat(kBadSelectorPath, ".match_labels[0].value"),
                              {"is not a label value (at most 63 characters"}));
  rows.push_back(BadCreateRow(BadKind::kLabelValue,
                              [](BadCreateRequest& r) {
                                BadSelectorOf(r).mutable_match_labels(0)->set_key(BadRpcLong(64));
                              },
                              absl::StrCat(kBadSelectorPath, ".match_labels[0].key"),
                              {"is not a label key"}));
  rows.push_back(BadCreateRow(
      BadKind::kDnsLimit,
      [](BadCreateRequest& r) {
        BadSelectorOf(r).mutable_match_labels(0)->set_key(absl::StrCat(BadRpcLong(254), "/tier"));
      },
      absl::StrCat(kBadSelectorPath, ".match_labels[0].key"), {kBadRpcSubdomainTooLong}));
  rows.push_back(BadCreateRow(
      BadKind::kWrongCharacters,
      [](BadCreateRequest& r) { BadSelectorOf(r).mutable_match_labels(0)->set_value("prod env"); },
      absl::StrCat(kBadSelectorPath, ".match_labels[0].value"), {"is not a label value"}));
  rows.push_back(BadCreateRow(BadKind::kInvalidValue,
                              [](BadCreateRequest& r) {
                                *BadSelectorOf(r).add_match_labels() =
                                    BadSelectorOf(r).match_labels(0);
                              },
                              absl::StrCat(kBadSelectorPath, ".match_labels[1].key"),
                              {"match_labels are ordered by key without duplicates"}));
  rows.push_back(BadCreateRow(BadKind::kInvalidValue,
                              [](BadCreateRequest& r) {
                                BadSelectorOf(r).mutable_match_expressions(0)->set_operator_(
                                    "Maybe");
                              },
                              absl::StrCat(kBadSelectorPath, ".match_expressions[0].operator"),
                              {"is not one of In, NotIn, Exists, DoesNotExist"}));
  rows.push_back(BadCreateRow(
      BadKind::kEmpty,
      [](BadCreateRequest& r) { BadSelectorOf(r).mutable_match_expressions(0)->clear_values(); },
      absl::StrCat(kBadSelectorPath, ".match_expressions[0].values"), {"required for In"}));
  rows.push_back(BadCreateRow(BadKind::kInvalidValue,
                              [](BadCreateRequest& r) {
                                BadSelectorOf(r).mutable_match_expressions(0)->set_operator_(
                                    "Exists");
                              },
                              absl::StrCat(kBadSelectorPath, ".match_expressions[0].values"),
                              {"must be empty for Exists"}));
  rows.push_back(BadCreateRow(
      BadKind::kLabelValue,
      [](BadCreateRequest& r) {
        BadSelectorOf(r).mutable_match_expressions(0)->set_values(0, BadRpcLong(64));
      },
      absl::StrCat(kBadSelectorPath, ".match_expressions[0].values[0]"), {"is not a label value"}));
  rows.push_back(BadCreateRow(
      BadKind::kLabelValue,
      [](BadCreateRequest& r) {
        BadSelectorOf(r).mutable_match_expressions(0)->set_key(BadRpcLong(64));
      },
      absl::StrCat(kBadSelectorPath, ".match_expressions[0].key"), {"is not a label key"}));
  rows.push_back(
      BadCreateRow(BadKind::kWrongCharacters,
                   [](BadCreateRequest& r) { r.mutable_spec()->set_cluster("Edge_Cluster"); },
                   "spec.cluster", {kBadRpcNotLabel}));
  rows.push_back(
      BadCreateRow(BadKind::kDnsLimit,
                   [](BadCreateRequest& r) { r.mutable_spec()->set_cluster(BadRpcLong(64)); },
                   "spec.cluster", {kBadRpcLabelTooLong}));
}

void AddBadUpdateAndDeleteIdentityRows(std::vector<BadInputRpcRow>& rows) {
  using U = v1::UpdateIdentityRequest;
  const std::string u = "IdentityService/UpdateIdentity";
  rows.push_back(BadRpcInvalid(u, BadKind::kEmpty,
                               BadRpcBytes<U>(kBadRpcIdentity, [](U& r) { r.clear_name(); }),
                               "name", {kBadRpcRequired}));
  rows.push_back(BadRpcInvalid(
      u, BadKind::kWrongCharacters,
      BadRpcBytes<U>(kBadRpcIdentity,
                     [](U& r) { r.mutable_spec()->mutable_secret_ref()->set_name("aws creds"); }),
      "spec.secret_ref.name", {kBadRpcNotSubdomain}));
  rows.push_back(BadRpcInvalid(u, BadKind::kLabelValue,
                               BadRpcBytes<U>(kBadRpcIdentity,
                                              [](U& r) {
                                                r.mutable_spec()
                                                    ->mutable_allowed_namespaces()
                                                    ->mutable_selector()
                                                    ->mutable_match_labels(0)
                                                    ->set_value(BadRpcLong(100));
                                              }),
                               absl::StrCat(kBadSelectorPath, ".match_labels[0].value"),
                               {"is not a label value"}));
  rows.push_back(BadRpcInvalid(u, BadKind::kInvalidValue,
                               BadRpcBytes<U>(kBadRpcIdentity,
                                              [](U& r) {
                                                r.mutable_spec()
                                                    ->mutable_allowed_namespaces()
                                                    ->mutable_selector()
                                                    ->mutable_match_expressions(0)
                                                    ->set_operator_("in");
                                              }),
                               absl::StrCat(kBadSelectorPath, ".match_expressions[0].operator"),
                               {"is not one of"}));
  rows.push_back(BadRpcInvalid(
      u, BadKind::kWrongCharacters,
      BadRpcBytes<U>(kBadRpcIdentity, [](U& r) { r.mutable_spec()->set_cluster("edge 1"); }),
      "spec.cluster", {kBadRpcNotLabel}));

  using D = v1::DeleteIdentityRequest;
  const std::string d = "IdentityService/DeleteIdentity";
  rows.push_back(BadRpcInvalid(d, BadKind::kWrongCharacters, BadRpcBytes<D>(R"pb(request_id: "r"
                                                                                 name: "-aws")pb"),
                               "name", {kBadRpcNotSubdomain}));
  rows.push_back(BadRpcInvalid(d, BadKind::kWrongCharacters, BadRpcBytes<D>(R"pb(request_id: "a b"
                                                                                 name: "aws")pb"),
                               "request_id", {kBadRpcNotToken}));
  rows.push_back(BadRpcInvalid(
      d, BadKind::kDnsLimit,
      BadRpcBytes<D>(R"pb(request_id: "r")pb", [](D& r) { r.set_name(BadRpcLong(300)); }), "name",
      {kBadRpcSubdomainTooLong}));
}

void AddBadBindingRows(std::vector<BadInputRpcRow>& rows) {
  using B = v1::BindIdentityRequest;
  const std::string b = "IdentityService/BindIdentity";
  constexpr char kBinding[] = R"pb(
    request_id: "bad-bind"
    identity: "aws"
    namespace: "team-a"
    owner {
      api_version: "v1"
      kind: "ConfigMap"
      name: "settings"
      uid: "0f8fad5b-d9cb-469f-a165-70867728950e"
    })pb";
  auto bind = [&](BadKind kind, void (*edit)(B&), std::string field,
                  std::vector<std::string> rule) {
    rows.push_back(
        BadRpcInvalid(b, kind, BadRpcBytes<B>(kBinding, edit), std::move(field), std::move(rule)));
  };
  bind(BadKind::kEmpty, [](B& r) { r.clear_identity(); }, "identity", {kBadRpcRequired});
  bind(BadKind::kWrongCharacters, [](B& r) { r.set_namespace_("Team_A"); }, "namespace",
       {kBadRpcNotLabel});
  bind(BadKind::kWrongCharacters, [](B& r) { r.mutable_owner()->set_api_version("apps/V1"); },
       "owner.api_version", {"is neither \"v1\" nor \"<group>/<version>\""});
  bind(BadKind::kEmpty, [](B& r) { r.mutable_owner()->clear_api_version(); }, "owner.api_version",
       {kBadRpcRequired});
  bind(BadKind::kWrongCharacters, [](B& r) { r.mutable_owner()->set_kind("Config Map"); },
       "owner.kind", {"is not a kind (1-63 ASCII letters and digits)"});
  bind(BadKind::kOversized, [](B& r) { r.mutable_owner()->set_kind(BadRpcLong(64)); }, "owner.kind",
       {"is not a kind (1-63 ASCII letters and digits)"});
  bind(BadKind::kDnsLimit, [](B& r) { r.mutable_owner()->set_name(BadRpcLong(254)); }, "owner.name",
       {kBadRpcSubdomainTooLong});
  bind(BadKind::kEmpty, [](B& r) { r.mutable_owner()->clear_uid(); }, "owner.uid",
       {kBadRpcRequired});
  bind(BadKind::kWrongCharacters,
       [](B& r) { r.mutable_owner()->set_uid("0F8FAD5B-D9CB-469F-A165-70867728950E"); },
       "owner.uid", {"is not a lowercase RFC 4122 UUID"});

  using U = v1::UnbindIdentityRequest;
  const std::string u = "IdentityService/UnbindIdentity";
  rows.push_back(BadRpcInvalid(
      u, BadKind::kWrongCharacters,
      BadRpcBytes<U>(kBinding, [](U& r) { r.mutable_owner()->set_uid("uid with spaces"); }),
      "owner.uid", {"is not a lowercase RFC 4122 UUID"}));
  rows.push_back(BadRpcInvalid(
      u, BadKind::kEmpty, BadRpcBytes<U>(kBinding, [](U& r) { r.mutable_owner()->clear_kind(); }),
      "owner.kind", {kBadRpcRequired}));
  rows.push_back(
      BadRpcInvalid(u, BadKind::kDnsLimit,
                    BadRpcBytes<U>(kBinding, [](U& r) { r.set_namespace_(BadRpcLong(64)); }),
                    "namespace", {kBadRpcLabelTooLong}));
  rows.push_back(
      BadRpcInvalid(u, BadKind::kDnsLimit,
                    BadRpcBytes<U>(kBinding, [](U& r) { r.set_identity(BadRpcLong(254)); }),
                    "identity", {kBadRpcSubdomainTooLong}));
}

void AddBadIdentityReadRows(std::vector<BadInputRpcRow>& rows) {
  using G = v1::GetIdentityRequest;
  const std::string g = "IdentityService/GetIdentity";
  rows.push_back(BadRpcInvalid(g, BadKind::kWrongCharacters, BadRpcBytes<G>(R"pb(name: "AWS")pb"),
                               "name", {kBadRpcNotSubdomain}));
  rows.push_back(BadRpcInvalid(g, BadKind::kEmpty, BadRpcBytes<G>(""), "name", {kBadRpcRequired}));
  rows.push_back(BadRpcInvalid(g, BadKind::kDnsLimit,
                               BadRpcBytes<G>("", [](G& r) { r.set_name(BadRpcLong(254)); }),
                               "name", {kBadRpcSubdomainTooLong}));
  // ListIdentities has one bool field: only bytes that do not parse are bad input (a
  // truncated varint for field 1).
  rows.push_back({"IdentityService/ListIdentities",
                  BadKind::kWrongType,
                  std::string("\x08\x80", 2),
                  grpc::StatusCode::INVALID_ARGUMENT,
                  "request",
                  {kBadRpcUnparsed}});

  using M = v1::ListMirrorsRequest;
  const std::string m = "IdentityService/ListMirrors";
  rows.push_back(BadRpcInvalid(m, BadKind::kWrongCharacters,
                               BadRpcBytes<M>(R"pb(identity: "AWS")pb"), "identity",
                               {kBadRpcNotSubdomain}));
  rows.push_back(BadRpcInvalid(m, BadKind::kWrongCharacters,
                               BadRpcBytes<M>(R"pb(namespace: "team a")pb"), "namespace",
                               {kBadRpcNotLabel}));
  rows.push_back(BadRpcInvalid(m, BadKind::kDnsLimit,
                               BadRpcBytes<M>("", [](M& r) { r.set_identity(BadRpcLong(254)); }),
                               "identity", {kBadRpcSubdomainTooLong}));
}

}  // namespace

void AddIdentityServiceBadInputRows(std::vector<BadInputRpcRow>& rows) {
  AddBadCreateIdentityRows(rows);
  AddBadUpdateAndDeleteIdentityRows(rows);
  AddBadBindingRows(rows);
  AddBadIdentityReadRows(rows);
}

}  // namespace credledger::testing
