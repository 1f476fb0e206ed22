// The table of the bad-input suite of the gRPC API (docs/api.md, "Bad input"): for every RPC of
// proto/credledger/v1/api.proto, requests that break one rule each, and the refusal each must
// get. bad_input_api_test.cc sends every row to a real server and checks the refusal and that
// nothing was appended.
//
// A row's request is the serialized bytes the client sends, so that a row can also hold
// what a typed stub cannot send: unknown enum numbers, invalid UTF-8, bytes that do not parse
// as the request message at all.
#pragma once

#include <google/protobuf/message.h>
#include <google/protobuf/text_format.h>
#include <grpcpp/support/status_code_enum.h>

#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace credledger::testing {

// The category of bad input a row belongs to (docs/api.md, "Bad input").
enum class BadInputKind {
  kEmpty,            // a required field left empty or unset
  kOversized,        // a value or a list over its documented limit
  kWrongCharacters,  // spaces, uppercase, control bytes, invalid UTF-8, a wrong shape
  kUnknownEnum,      // an enum number the proto does not define
  kWrongType,        // bytes that do not parse as the message, or a field of another wire type
  kDnsLimit,         // a name over 63 bytes (DNS-1123 label) or 253 bytes (subdomain)
  kLabelValue,       // a label value or label name over 63 characters
  kHugeReport,       // a report over the limits of projections/report_validation.h, or over
                     // the gRPC maximum message size
  kInvalidValue,     // a value of the right shape that a rule refuses (out of range, conflicting)
};

// One bad request and the refusal it must get.
struct BadInputRpcRow {
  // "<Service>/<Method>", as in the authorization policy: "TargetService/RegisterTarget".
  std::string method;
  BadInputKind kind;
  // The serialized request.
  std::string request;
  grpc::StatusCode code;
  // The field path, as the API names it ("report.releases[0].name"): the message has the
  // form "<field>: <rule>". Empty for refusals gRPC gives before the service sees the request.
  std::string field;
  // Substrings the message must contain besides the field: the rule.
  std::vector<std::string> rule;
};

// Every row, in the order of api.proto. Rows assume the state BadInputApiTest sets up: Target
// demo/edge-1 registered and cluster "home" registered (inCluster), so that they exercise
// validation rather than NOT_FOUND. REQUIRES: called in a test (building a row reports text-format
// errors with ADD_FAILURE).
std::vector<BadInputRpcRow> BadInputRpcRows();

// The name of `kind` for test traces (kOversized: "oversized").
const char* BadInputKindName(BadInputKind kind);

// The rows of each service, appended to `rows` (one file each).
void AddTargetServiceBadInputRows(std::vector<BadInputRpcRow>& rows);
void AddReportServiceBadInputRows(std::vector<BadInputRpcRow>& rows);
void AddAuditServiceBadInputRows(std::vector<BadInputRpcRow>& rows);
void AddIdentityServiceBadInputRows(std::vector<BadInputRpcRow>& rows);
void AddClusterAndSourceServiceBadInputRows(std::vector<BadInputRpcRow>& rows);

// Helpers the row files share.

// `text` (protobuf text format) parsed as `Request`, changed by `edit`, serialized; a text
// that does not parse fails the running test.
template <typename Request, typename Edit>
std::string BadRpcBytes(const std::string& text, Edit edit) {
  Request request;
  if (!google::protobuf::TextFormat::ParseFromString(text, &request)) {
    ADD_FAILURE() << "row request does not parse as " << Request::descriptor()->full_name() << ": "
                  << text;
  }
  edit(request);
  return request.SerializeAsString();
}
template <typename Request>
std::string BadRpcBytes(const std::string& text) {
  return BadRpcBytes<Request>(text, [](Request&) {});
}

// Sets enum field `field` of `message` to `number`, which the enum need not define (proto3
// enums are open: the number is sent as is).
inline void BadRpcSetEnumNumber(google::protobuf::Message& message, const char* field, int number) {
  message.GetReflection()->SetEnumValue(&message, message.GetDescriptor()->FindFieldByName(field),
                                        number);
}

// `n` bytes of 'a': a value over a length limit that breaks no other rule.
inline std::string BadRpcLong(size_t n) { return std::string(n, 'a'); }

// An INVALID_ARGUMENT row.
inline BadInputRpcRow BadRpcInvalid(std::string method, BadInputKind kind, std::string request,
                                    std::string field, std::vector<std::string> rule) {
  return {std::move(method), kind,           std::move(request), grpc::StatusCode::INVALID_ARGUMENT,
          std::move(field),  std::move(rule)};
}

// Rules as the validators state them (common/dns_label.cc, service/decide/validation.cc).
inline constexpr char kBadRpcNotLabel[] = "is not a DNS-1123 label";
inline constexpr char kBadRpcNotSubdomain[] = "is not a DNS-1123 subdomain";
inline constexpr char kBadRpcLabelTooLong[] = "is too long; a DNS-1123 label has at most 63 bytes";
inline constexpr char kBadRpcSubdomainTooLong[] =
    "is too long; a DNS-1123 subdomain has at most 253 bytes";
inline constexpr char kBadRpcRequired[] = "required";
// The rule of a request whose bytes do not parse (unparsed_request_interceptor.h).
inline constexpr char kBadRpcUnparsed[] = "the bytes do not parse as the request of";
inline constexpr char kBadRpcNotToken[] = "only printable ASCII without spaces";

}  // namespace credledger::testing
