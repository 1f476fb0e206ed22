#include "cli/source_printer.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/text_fields.h"
#include "kubebridge/model/connection_errors.h"
#include "service/decide/reference_validation.h"

namespace credledger::cli {
namespace {

// Width of the labels of LabeledLine.
constexpr int kSourceLabelWidth = 10;

absl::string_view RetryText(absl::string_view reason) {
  if (reason == kubebridge::kReasonVerifyFailed) return "yes, with backoff";
  if (reason == kubebridge::kReasonUnsupported) return "no: change the source's spec first";
  return "no";
}

}  // namespace

absl::string_view SourceKindName(v1::SourceKind kind) {
  switch (kind) {
    case v1::SOURCE_KIND_GIT:
      return "git";
    case v1::SOURCE_KIND_HELM:
      return "helm";
    case v1::SOURCE_KIND_OCI:
      return "oci";
    case v1::SOURCE_KIND_UNSPECIFIED:
    case v1::SourceKind_INT_MIN_SENTINEL_DO_NOT_USE_:
    case v1::SourceKind_INT_MAX_SENTINEL_DO_NOT_USE_:
      break;
  }
  return "unspecified";
}

std::string FormatVerifySourceText(const v1::VerifySourceRequest& request,
                                   const v1::VerifySourceResponse& response) {
  const v1::SourceVerified& result = response.result();
  const std::string& ns = request.source().namespace_();
  std::string out = absl::StrCat("source ", ns.empty() ? service::kDefaultSourceNamespace : ns, "/",
                                 request.name(), ": ", result.reason());
  if (response.replayed()) {
    absl::StrAppend(&out, " (request already answered, nothing appended; seq ", response.seq(),
                    ")\n");
  } else {
    absl::StrAppend(&out, " (seq ", response.seq(), ")\n");
  }
  absl::StrAppend(&out,
                  LabeledLine("kind", OrDash(SourceKindName(result.kind())), kSourceLabelWidth),
                  LabeledLine("url", OrDash(result.url()), kSourceLabelWidth),
                  LabeledLine("auth", OrDash(result.auth_type()), kSourceLabelWidth),
                  LabeledLine("message", OrDash(result.message()), kSourceLabelWidth));
  if (!result.host_key_fingerprint().empty()) {
    absl::StrAppend(
        &out, LabeledLine("host key", OrDash(result.host_key_fingerprint()), kSourceLabelWidth));
  }
  if (result.insecure_skip_verify()) {
    absl::StrAppend(
        &out, LabeledLine("tls", OrDash("server certificate not verified (insecureSkipVerify)"),
                          kSourceLabelWidth));
  }
  for (const std::string& note : result.notes())
    absl::StrAppend(&out, LabeledLine("note", OrDash(note), kSourceLabelWidth));
  absl::StrAppend(&out,
                  LabeledLine("retry", OrDash(RetryText(result.reason())), kSourceLabelWidth));
  return out;
}

}  // namespace credledger::cli
