// The AuditService rows of the bad-input table.
#include "credledger/v1/api.pb.h"
#include "test/integration/bad_input_rpc_rows.h"

namespace credledger::testing {
namespace {

using BadKind = BadInputKind;

void AddBadExportRows(std::vector<BadInputRpcRow>& rows) {
  using E = v1::ExportEventsRequest;
  const std::string m = "AuditService/ExportEvents";
  rows.push_back(BadRpcInvalid(m, BadKind::kInvalidValue,
                               BadRpcBytes<E>(R"pb(filter { after_seq: -1 })pb"),
                               "filter.after_seq", {"negative"}));
  rows.push_back(BadRpcInvalid(m, BadKind::kInvalidValue,
                               BadRpcBytes<E>(R"pb(filter { until_seq: -2 })pb"),
                               "filter.until_seq", {"negative"}));
  rows.push_back(BadRpcInvalid(m, BadKind::kInvalidValue,
                               BadRpcBytes<E>(R"pb(filter { after_seq: 5 until_seq: 2 })pb"),
                               "filter.until_seq", {"2 is below after_seq 5"}));
  rows.push_back(BadRpcInvalid(m, BadKind::kInvalidValue,
                               BadRpcBytes<E>(R"pb(filter { from_time_us: -1 })pb"),
                               "filter.from_time_us", {"negative"}));
  rows.push_back(BadRpcInvalid(m, BadKind::kInvalidValue,
                               BadRpcBytes<E>(R"pb(filter { to_time_us: -1 })pb"),
                               "filter.to_time_us", {"negative"}));
  rows.push_back(
      BadRpcInvalid(m, BadKind::kInvalidValue,
                    BadRpcBytes<E>(R"pb(filter { from_time_us: 2000 to_time_us: 1000 })pb"),
                    "filter.to_time_us", {"before from_time_us"}));
  rows.push_back(BadRpcInvalid(
      m, BadKind::kInvalidValue,
      BadRpcBytes<E>(R"pb(filter { stream: "target/demo/edge-1" stream_prefix: "target/" })pb"),
      "filter.stream_prefix", {"not with filter.stream"}));
  rows.push_back(BadRpcInvalid(m, BadKind::kWrongCharacters,
                               BadRpcBytes<E>(R"pb(filter { types: "CredentialIssued" })pb"),
                               "filter.types[0]", {"unknown event type"}));
  rows.push_back(BadRpcInvalid(
      m, BadKind::kOversized,
      BadRpcBytes<E>(R"pb(filter { types: "credledger.v1.CredentialIssued" })pb",
                     [](E& r) { r.mutable_filter()->add_types(BadRpcLong(1 << 20)); }),
      "filter.types[1]", {"unknown event type"}));
  rows.push_back(BadRpcInvalid(m, BadKind::kWrongCharacters,
                               BadRpcBytes<E>(R"pb(filter { stream: "target/demo/edge 1" })pb"),
                               "filter.stream", {kBadRpcNotToken}));
  rows.push_back(BadRpcInvalid(m, BadKind::kWrongCharacters,
                               BadRpcBytes<E>(R"pb(filter { stream_prefix: "target/\n" })pb"),
                               "filter.stream_prefix", {kBadRpcNotToken}));
  rows.push_back(BadRpcInvalid(
      m, BadKind::kOversized,
      BadRpcBytes<E>("", [](E& r) { r.mutable_filter()->set_stream(BadRpcLong(2 << 20)); }),
      "filter.stream", {"2097152 bytes; at most 512 allowed"}));
}

void AddBadStateAtRows(std::vector<BadInputRpcRow>& rows) {
  using S = v1::GetStateAtRequest;
  const std::string m = "AuditService/GetStateAt";
  rows.push_back(BadRpcInvalid(m, BadKind::kEmpty, BadRpcBytes<S>(R"pb(namespace: "demo")pb"),
                               "as_of", {"required (a seq or a time)"}));
  rows.push_back(BadRpcInvalid(m, BadKind::kInvalidValue,
                               BadRpcBytes<S>(R"pb(as_of { seq: 1000000 })pb"), "as_of.seq",
                               {"1000000 is outside 0.."}));
  rows.push_back(BadRpcInvalid(m, BadKind::kInvalidValue,
                               BadRpcBytes<S>(R"pb(as_of { seq: -1 })pb"), "as_of.seq",
                               {"-1 is outside 0.."}));
  rows.push_back(BadRpcInvalid(m, BadKind::kInvalidValue,
                               BadRpcBytes<S>(R"pb(as_of { time { seconds: 1 nanos: -5 } })pb"),
                               "as_of.time", {"is not a time between years 1 and 9999"}));
  rows.push_back(BadRpcInvalid(m, BadKind::kEmpty, BadRpcBytes<S>(R"pb(as_of { seq: 1 }
                                                                       name: "edge-1")pb"),
                               "name", {"requires namespace"}));
  rows.push_back(BadRpcInvalid(m, BadKind::kWrongCharacters,
                               BadRpcBytes<S>(R"pb(as_of { seq: 1 }
                                                   namespace: "Demo")pb"),
                               "namespace", {kBadRpcNotLabel}));
  rows.push_back(BadRpcInvalid(m, BadKind::kDnsLimit,
                               BadRpcBytes<S>(R"pb(as_of { seq: 1 }
                                                   namespace: "demo")pb",
                                              [](S& r) { r.set_name(BadRpcLong(64)); }),
                               "name", {kBadRpcLabelTooLong}));
}

void AddBadTimelineRows(std::vector<BadInputRpcRow>& rows) {
  using T = v1::TimelineRequest;
  const std::string m = "AuditService/Timeline";
  rows.push_back(BadRpcInvalid(m, BadKind::kInvalidValue,
                               BadRpcBytes<T>(R"pb(identity: "aws" namespace: "demo")pb"),
                               "identity", {"not both"}));
  rows.push_back(BadRpcInvalid(m, BadKind::kInvalidValue, BadRpcBytes<T>(R"pb(namespace: "demo"
                                                                              name: "edge-1"
                                                                              limit: 10001)pb"),
                               "limit", {"must be 0..10000"}));
  rows.push_back(BadRpcInvalid(m, BadKind::kInvalidValue, BadRpcBytes<T>(R"pb(namespace: "demo"
                                                                              name: "edge-1"
                                                                              limit: -1)pb"),
                               "limit", {"must be 0..10000"}));
  rows.push_back(BadRpcInvalid(m, BadKind::kInvalidValue, BadRpcBytes<T>(R"pb(namespace: "demo"
                                                                              name: "edge-1"
                                                                              after_seq: -1)pb"),
                               "after_seq", {"negative"}));
  rows.push_back(
      BadRpcInvalid(m, BadKind::kEmpty, BadRpcBytes<T>(""), "namespace", {kBadRpcRequired}));
  rows.push_back(BadRpcInvalid(m, BadKind::kWrongCharacters,
                               BadRpcBytes<T>(R"pb(namespace: "demo" name: "Edge-1")pb"), "name",
                               {kBadRpcNotLabel}));
  rows.push_back(BadRpcInvalid(m, BadKind::kWrongCharacters,
                               BadRpcBytes<T>(R"pb(identity: "AWS")pb"), "identity",
                               {kBadRpcNotSubdomain}));
  rows.push_back(BadRpcInvalid(m, BadKind::kDnsLimit,
                               BadRpcBytes<T>("", [](T& r) { r.set_identity(BadRpcLong(254)); }),
                               "identity", {kBadRpcSubdomainTooLong}));
}

void AddBadDiffRows(std::vector<BadInputRpcRow>& rows) {
  using D = v1::DiffRequest;
  const std::string m = "AuditService/Diff";
  rows.push_back(BadRpcInvalid(m, BadKind::kEmpty, BadRpcBytes<D>(R"pb(to { seq: 1 })pb"), "from",
                               {"required (a seq or a time)"}));
  rows.push_back(BadRpcInvalid(m, BadKind::kEmpty, BadRpcBytes<D>(R"pb(from { seq: 1 })pb"), "to",
                               {"required (a seq or a time)"}));
  rows.push_back(BadRpcInvalid(m, BadKind::kInvalidValue, BadRpcBytes<D>(R"pb(from { seq: 2 }
                                                                              to { seq: 1 })pb"),
                               "to", {"seq 1 is before from seq 2"}));
  rows.push_back(BadRpcInvalid(m, BadKind::kInvalidValue, BadRpcBytes<D>(R"pb(from { seq: 999999 }
                                                                              to { seq: 1 })pb"),
                               "from.seq", {"999999 is outside 0.."}));
  rows.push_back(
      BadRpcInvalid(m, BadKind::kInvalidValue,
                    BadRpcBytes<D>(R"pb(from { seq: 0 }
                                        to { time { seconds: 1 nanos: 1000000000 } })pb"),
                    "to.time", {"is not a time between years 1 and 9999"}));
  rows.push_back(BadRpcInvalid(m, BadKind::kEmpty, BadRpcBytes<D>(R"pb(from { seq: 0 }
                                                                       to { seq: 1 }
                                                                       name: "edge-1")pb"),
                               "name", {"requires namespace"}));
}

void AddBadValidCredentialsRows(std::vector<BadInputRpcRow>& rows) {
  using V = v1::ValidCredentialsAtRequest;
  const std::string m = "AuditService/ValidCredentialsAt";
  rows.push_back(BadRpcInvalid(m, BadKind::kEmpty, BadRpcBytes<V>(R"pb(namespace: "demo")pb"),
                               "time", {kBadRpcRequired}));
  rows.push_back(BadRpcInvalid(m, BadKind::kInvalidValue,
                               BadRpcBytes<V>(R"pb(time { seconds: -62135596801 })pb"), "time",
                               {"is not a time between years 1 and 9999"}));
  rows.push_back(BadRpcInvalid(m, BadKind::kWrongCharacters,
                               BadRpcBytes<V>(R"pb(time { seconds: 1 }
                                                   namespace: "demo_1")pb"),
                               "namespace", {kBadRpcNotLabel}));
  rows.push_back(BadRpcInvalid(m, BadKind::kEmpty, BadRpcBytes<V>(R"pb(time { seconds: 1 }
                                                                       name: "edge-1")pb"),
                               "name", {"requires namespace"}));
}

}  // namespace

void AddAuditServiceBadInputRows(std::vector<BadInputRpcRow>& rows) {
  AddBadExportRows(rows);
  AddBadStateAtRows(rows);
  AddBadTimelineRows(rows);
  AddBadDiffRows(rows);
  AddBadValidCredentialsRows(rows);
}

}  // namespace credledger::testing
