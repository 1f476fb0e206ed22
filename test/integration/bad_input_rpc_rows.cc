// The TargetService rows of the bad-input table, and the table itself.
#include "test/integration/bad_input_rpc_rows.h"

#include "credledger/v1/api.pb.h"

namespace credledger::testing {
namespace {

using BadKind = BadInputKind;

// A request of every mutating TargetService RPC, valid but for what a row changes.
constexpr char kBadRpcTarget[] = R"pb(namespace: "demo" name: "edge-1" request_id: "bad-input")pb";

}  // namespace

void AddTargetServiceBadInputRows(std::vector<BadInputRpcRow>& rows) {
  using R = v1::RegisterTargetRequest;
  const std::string m = "TargetService/RegisterTarget";
  rows.push_back(BadRpcInvalid(m, BadKind::kEmpty, BadRpcBytes<R>(R"pb(name: "edge-1"
                                                                       request_id: "r")pb"),
                               "namespace", {kBadRpcRequired}));
  rows.push_back(BadRpcInvalid(m, BadKind::kEmpty, BadRpcBytes<R>(R"pb(namespace: "demo"
                                                                       request_id: "r")pb"),
                               "name", {kBadRpcRequired}));
  rows.push_back(BadRpcInvalid(m, BadKind::kEmpty, BadRpcBytes<R>(R"pb(namespace: "demo"
                                                                       name: "edge-2")pb"),
                               "request_id", {kBadRpcRequired}));
  rows.push_back(
      BadRpcInvalid(m, BadKind::kDnsLimit,
                    BadRpcBytes<R>(kBadRpcTarget, [](R& r) { r.set_namespace_(BadRpcLong(64)); }),
                    "namespace", {kBadRpcLabelTooLong}));
  rows.push_back(
      BadRpcInvalid(m, BadKind::kDnsLimit,
                    BadRpcBytes<R>(kBadRpcTarget, [](R& r) { r.set_name(BadRpcLong(64)); }), "name",
                    {kBadRpcLabelTooLong}));
  rows.push_back(
      BadRpcInvalid(m, BadKind::kOversized,
                    BadRpcBytes<R>(kBadRpcTarget, [](R& r) { r.set_name(BadRpcLong(1 << 20)); }),
                    "name", {"(1048576 bytes)", "is too long"}));
  for (const char* name : {"Edge-1", "edge_1", "edge 1", "edge-1\n", "-edge", "edge.1", "\x01"}) {
    rows.push_back(BadRpcInvalid(m, BadKind::kWrongCharacters,
                                 BadRpcBytes<R>(kBadRpcTarget, [&](R& r) { r.set_name(name); }),
                                 "name", {kBadRpcNotLabel}));
  }
  rows.push_back(
      BadRpcInvalid(m, BadKind::kOversized,
                    BadRpcBytes<R>(kBadRpcTarget, [](R& r) { r.set_request_id(BadRpcLong(129)); }),
                    "request_id", {"129 bytes; at most 128 allowed"}));
  for (const char* id : {"has space", "tab\there", "caf\xc3\xa9", "del\x7f"}) {
    rows.push_back(BadRpcInvalid(m, BadKind::kWrongCharacters,
                                 BadRpcBytes<R>(kBadRpcTarget, [&](R& r) { r.set_request_id(id); }),
                                 "request_id", {kBadRpcNotToken}));
  }
  rows.push_back(BadRpcInvalid(m, BadKind::kInvalidValue,
                               BadRpcBytes<R>(R"pb(namespace: "demo"
                                                   name: "edge-2"
                                                   request_id: "credledger:x")pb"),
                               "request_id", {"reserved for credledger's own commands"}));
  for (const char* uid : {"0F8FAD5B-D9CB-469F-A165-70867728950E", "not-a-uid",
                          "0f8fad5b-d9cb-469f-a165-70867728950e0"}) {
    rows.push_back(BadRpcInvalid(m, BadKind::kWrongCharacters,
                                 BadRpcBytes<R>(kBadRpcTarget, [&](R& r) { r.set_uid(uid); }),
                                 "uid", {"is not a lowercase RFC 4122 UUID"}));
  }
  // Field 1 (namespace, a string) sent as a varint: protobuf keeps it as an unknown field,
  // so the request arrives without a namespace.
  rows.push_back(BadRpcInvalid(m, BadKind::kWrongType,
                               std::string("\x08\x05\x12\x06"
                                           "edge-1\x1a\x01r",
                                           13),
                               "namespace", {kBadRpcRequired}));

  using D = v1::DeleteTargetRequest;
  const std::string d = "TargetService/DeleteTarget";
  rows.push_back(BadRpcInvalid(d, BadKind::kEmpty, BadRpcBytes<D>(R"pb(name: "edge-1"
                                                                       request_id: "r")pb"),
                               "namespace", {kBadRpcRequired}));
  rows.push_back(
      BadRpcInvalid(d, BadKind::kWrongCharacters,
                    BadRpcBytes<D>(kBadRpcTarget, [](D& r) { r.set_namespace_("Demo"); }),
                    "namespace", {kBadRpcNotLabel}));
  rows.push_back(
      BadRpcInvalid(d, BadKind::kDnsLimit,
                    BadRpcBytes<D>(kBadRpcTarget, [](D& r) { r.set_name(BadRpcLong(64)); }), "name",
                    {kBadRpcLabelTooLong}));
  rows.push_back(
      BadRpcInvalid(d, BadKind::kOversized,
                    BadRpcBytes<D>(kBadRpcTarget, [](D& r) { r.set_request_id(BadRpcLong(4096)); }),
                    "request_id", {"4096 bytes; at most 128 allowed"}));

  using Q = v1::RequestRotationRequest;
  const std::string q = "TargetService/RequestRotation";
  for (const char* value : {"two words", "tab\tvalue", "del\x7f", "caf\xc3\xa9"}) {
    rows.push_back(BadRpcInvalid(q, BadKind::kWrongCharacters,
                                 BadRpcBytes<Q>(kBadRpcTarget, [&](Q& r) { r.set_value(value); }),
                                 "value", {kBadRpcNotToken}));
  }
  rows.push_back(
      BadRpcInvalid(q, BadKind::kOversized,
                    BadRpcBytes<Q>(kBadRpcTarget, [](Q& r) { r.set_value(BadRpcLong(254)); }),
                    "value", {"254 bytes; at most 253 allowed"}));
  rows.push_back(BadRpcInvalid(q, BadKind::kWrongCharacters,
                               BadRpcBytes<Q>(kBadRpcTarget, [](Q& r) { r.set_name("Edge-1"); }),
                               "name", {kBadRpcNotLabel}));

  using V = v1::RevokeRequest;
  const std::string v = "TargetService/Revoke";
  rows.push_back(
      BadRpcInvalid(v, BadKind::kOversized,
                    BadRpcBytes<V>(kBadRpcTarget, [](V& r) { r.set_reason(BadRpcLong(1025)); }),
                    "reason", {"1025 bytes; at most 1024 allowed"}));
  rows.push_back(
      BadRpcInvalid(v, BadKind::kOversized,
                    BadRpcBytes<V>(kBadRpcTarget, [](V& r) { r.set_reason(BadRpcLong(3 << 20)); }),
                    "reason", {"3145728 bytes; at most 1024 allowed"}));
  rows.push_back(BadRpcInvalid(v, BadKind::kEmpty, BadRpcBytes<V>(R"pb(namespace: "demo"
                                                                       name: "edge-1")pb"),
                               "request_id", {kBadRpcRequired}));

  using L = v1::LiftRevocationRequest;
  const std::string l = "TargetService/LiftRevocation";
  rows.push_back(
      BadRpcInvalid(l, BadKind::kWrongCharacters,
                    BadRpcBytes<L>(kBadRpcTarget, [](L& r) { r.set_request_id("a\tb"); }),
                    "request_id", {kBadRpcNotToken}));
  rows.push_back(
      BadRpcInvalid(l, BadKind::kWrongCharacters,
                    BadRpcBytes<L>(kBadRpcTarget, [](L& r) { r.set_namespace_("-demo"); }),
                    "namespace", {kBadRpcNotLabel}));

  using C = v1::ConfirmRolloutRequest;
  const std::string c = "TargetService/ConfirmRollout";
  rows.push_back(BadRpcInvalid(c, BadKind::kEmpty, BadRpcBytes<C>(kBadRpcTarget), "revision",
                               {kBadRpcRequired}));
  rows.push_back(
      BadRpcInvalid(c, BadKind::kWrongCharacters,
                    BadRpcBytes<C>(kBadRpcTarget, [](C& r) { r.set_revision("1.0 -abc"); }),
                    "revision", {kBadRpcNotToken}));
  rows.push_back(
      BadRpcInvalid(c, BadKind::kOversized,
                    BadRpcBytes<C>(kBadRpcTarget, [](C& r) { r.set_revision(BadRpcLong(254)); }),
                    "revision", {"254 bytes; at most 253 allowed"}));

  using G = v1::GetTargetRequest;
  const std::string g = "TargetService/GetTarget";
  rows.push_back(BadRpcInvalid(g, BadKind::kEmpty, BadRpcBytes<G>(R"pb(name: "edge-1")pb"),
                               "namespace", {kBadRpcRequired}));
  rows.push_back(BadRpcInvalid(g, BadKind::kWrongCharacters,
                               BadRpcBytes<G>(R"pb(namespace: "demo" name: "edge.1")pb"), "name",
                               {kBadRpcNotLabel}));
  rows.push_back(BadRpcInvalid(
      g, BadKind::kDnsLimit,
      BadRpcBytes<G>(R"pb(namespace: "demo")pb", [](G& r) { r.set_name(BadRpcLong(64)); }), "name",
      {kBadRpcLabelTooLong}));

  const std::string list = "TargetService/ListTargets";
  rows.push_back(BadRpcInvalid(list, BadKind::kWrongCharacters,
                               BadRpcBytes<v1::ListTargetsRequest>(R"pb(namespace: "Demo")pb"),
                               "namespace", {kBadRpcNotLabel}));
  rows.push_back(BadRpcInvalid(
      list, BadKind::kDnsLimit,
      BadRpcBytes<v1::ListTargetsRequest>("", [](auto& r) { r.set_namespace_(BadRpcLong(64)); }),
      "namespace", {kBadRpcLabelTooLong}));

  using W = v1::WatchTargetsRequest;
  const std::string w = "TargetService/WatchTargets";
  rows.push_back(BadRpcInvalid(w, BadKind::kInvalidValue, BadRpcBytes<W>(R"pb(after_seq: -1)pb"),
                               "after_seq", {"-1 is negative"}));
  rows.push_back(BadRpcInvalid(w, BadKind::kWrongCharacters,
                               BadRpcBytes<W>(R"pb(namespace: "demo/edge-1")pb"), "namespace",
                               {kBadRpcNotLabel}));
  rows.push_back(BadRpcInvalid(w, BadKind::kDnsLimit,
                               BadRpcBytes<W>("", [](W& r) { r.set_namespace_(BadRpcLong(300)); }),
                               "namespace", {kBadRpcLabelTooLong}));
}

std::vector<BadInputRpcRow> BadInputRpcRows() {
  std::vector<BadInputRpcRow> rows;
  AddTargetServiceBadInputRows(rows);
  AddReportServiceBadInputRows(rows);
  AddAuditServiceBadInputRows(rows);
  AddIdentityServiceBadInputRows(rows);
  AddClusterAndSourceServiceBadInputRows(rows);
  return rows;
}

const char* BadInputKindName(BadInputKind kind) {
  switch (kind) {
    case BadKind::kEmpty:
      return "empty";
    case BadKind::kOversized:
      return "oversized";
    case BadKind::kWrongCharacters:
      return "wrong characters";
    case BadKind::kUnknownEnum:
      return "unknown enum value";
    case BadKind::kWrongType:
      return "wrong type";
    case BadKind::kDnsLimit:
      return "over a DNS limit";
    case BadKind::kLabelValue:
      return "label value over 63 characters";
    case BadKind::kHugeReport:
      return "huge report";
    case BadKind::kInvalidValue:
      return "invalid value";
  }
  return "unknown kind";
}

}  // namespace credledger::testing
