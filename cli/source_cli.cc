#include "cli/source_cli.h"

#include <yaml-cpp/yaml.h>

#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cli/client_command.h"
#include "cli/framework/spec_file.h"
#include "cli/framework/yaml_fields.h"
#include "cli/source_printer.h"
#include "common/quote_cut.h"
#include "common/status_macros.h"
#include "credledger/v1/api.grpc.pb.h"
#include "kubebridge/model/connection_errors.h"
#include "kubebridge/sources/source_verifier.h"

namespace credledger::cli {
namespace {

using SourceStub = v1::SourceService::Stub;

// Longest part of a refused kind quoted in an error.
constexpr size_t kShownSourceKindBytes = 40;

// The flags that describe the source; exclusive with -f.
constexpr const char* kSpecFlags[] = {"kind",
                                      "url",
                                      "namespace",
                                      "auth",
                                      "secret",
                                      "known-hosts-configmap",
                                      "known-hosts-secret",
                                      "known-hosts-key",
                                      "ca-configmap",
                                      "ca-secret",
                                      "ca-key",
                                      "insecure-skip-tls-verify"};

absl::StatusOr<v1::SourceKind> ParseKind(absl::string_view field, absl::string_view text) {
  for (v1::SourceKind kind : {v1::SOURCE_KIND_GIT, v1::SOURCE_KIND_HELM, v1::SOURCE_KIND_OCI}) {
    if (SourceKindName(kind) == text) return kind;
  }
  return absl::InvalidArgumentError(absl::StrCat(field, ": ",
                                                 common::QuoteCut(text, kShownSourceKindBytes),
                                                 " is not a source kind (git, helm or oci)"));
}

// The reference named by --<prefix>-configmap or --<prefix>-secret and --<prefix>-key;
// nullopt when neither object is given.
absl::StatusOr<std::optional<v1::ObjectKeyRef>> RefFromFlags(absl::string_view prefix,
                                                             const std::string& configmap,
                                                             const std::string& secret,
                                                             const std::string& key) {
  if (!configmap.empty() && !secret.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", prefix, "-configmap and --", prefix, "-secret are exclusive"));
  }
  if (configmap.empty() && secret.empty()) {
    if (key.empty()) return std::optional<v1::ObjectKeyRef>();
    return absl::InvalidArgumentError(
        absl::StrCat("--", prefix, "-key needs --", prefix, "-configmap or --", prefix, "-secret"));
  }
  v1::ObjectKeyRef ref;
  ref.set_kind(configmap.empty() ? "Secret" : "ConfigMap");
  ref.set_name(configmap.empty() ? secret : configmap);
  ref.set_key(key);
  return std::optional<v1::ObjectKeyRef>(std::move(ref));
}

// The known auth type that `type` names when case is ignored ("SSHKey" gives "sshKey"), else
// `type`. The block flags follow it, so that `--auth SSHKey --secret k ...` builds the spec
// that a file with `type: SSHKey` and an `sshKey` block holds; the type is still sent as
// given, and the service answers Unsupported (auth types are case-sensitive).
std::string BlockType(const std::string& type) {
  for (const char* known : {kubebridge::kSourceAuthNone, kubebridge::kSourceAuthBasic,
                            kubebridge::kSourceAuthBearer, kubebridge::kSourceAuthSshKey}) {
    if (absl::EqualsIgnoreCase(type, known)) return known;
  }
  return type;
}

absl::Status FillAuthFromFlags(const SourceFlags& flags, v1::SourceAuth& auth) {
  auth.set_type(flags.auth);
  const std::string block = BlockType(flags.auth);
  ASSIGN_OR_RETURN(std::optional<v1::ObjectKeyRef> known_hosts,
                   RefFromFlags("known-hosts", flags.known_hosts_configmap,
                                flags.known_hosts_secret, flags.known_hosts_key));
  const bool ssh = block == kubebridge::kSourceAuthSshKey;
  if (known_hosts.has_value() && !ssh) {
    return absl::InvalidArgumentError(
        "--known-hosts-configmap, --known-hosts-secret: only "
        "with --auth sshKey");
  }
  const bool needs_secret =
      block == kubebridge::kSourceAuthBasic || block == kubebridge::kSourceAuthBearer || ssh;
  if (!needs_secret) {
    if (!flags.secret.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--secret: only with --auth basic, bearer or sshKey (got --auth ", flags.auth, ")"));
    }
    return absl::OkStatus();
  }
  if (flags.secret.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("--secret: required with --auth ", flags.auth));
  }
  if (block == kubebridge::kSourceAuthBasic) {
    auth.mutable_basic()->set_secret_name(flags.secret);
  } else if (block == kubebridge::kSourceAuthBearer) {
    auth.mutable_bearer()->set_secret_name(flags.secret);
  } else {
    if (!known_hosts.has_value()) {
      return absl::InvalidArgumentError(
          "--auth sshKey: requires --known-hosts-configmap or --known-hosts-secret (no mode "
          "skips the host key check)");
    }
    auth.mutable_ssh_key()->set_secret_name(flags.secret);
    *auth.mutable_ssh_key()->mutable_known_hosts_ref() = *std::move(known_hosts);
  }
  return absl::OkStatus();
}

// ---- The source file ---------------------------------------------------------------------

// Sets `*out` from `parent[key]` when present.
absl::Status OptionalSourceString(const YAML::Node& parent, absl::string_view path,
                                  const std::string& key, std::string* out) {
  const YAML::Node node = parent[key];
  if (!YamlPresent(node)) return absl::OkStatus();
  ASSIGN_OR_RETURN(*out, YamlString(node, YamlChild(path, key)));
  return absl::OkStatus();
}

absl::Status ParseObjectRef(const YAML::Node& node, absl::string_view path, v1::ObjectKeyRef& ref) {
  RETURN_IF_ERROR(YamlCheckKeys(node, path, {"kind", "name", "key"}));
  RETURN_IF_ERROR(OptionalSourceString(node, path, "kind", ref.mutable_kind()));
  RETURN_IF_ERROR(OptionalSourceString(node, path, "name", ref.mutable_name()));
  return OptionalSourceString(node, path, "key", ref.mutable_key());
}

// A {secretName} block.
absl::Status ParseSecretBlock(const YAML::Node& node, absl::string_view path,
                              std::string* secret_name) {
  RETURN_IF_ERROR(YamlCheckKeys(node, path, {"secretName"}));
  return OptionalSourceString(node, path, "secretName", secret_name);
}

absl::Status ParseSourceAuth(const YAML::Node& node, v1::SourceAuth& auth) {
  constexpr char kPath[] = "auth";
  RETURN_IF_ERROR(YamlCheckKeys(node, kPath, {"type", "basic", "bearer", "sshKey"}));
  if (!YamlPresent(node["type"])) {
    return YamlInvalid("auth.type", "required when auth is given (none, basic, bearer or sshKey)");
  }
  RETURN_IF_ERROR(OptionalSourceString(node, kPath, "type", auth.mutable_type()));
  if (const YAML::Node basic = node["basic"]; YamlPresent(basic)) {
    RETURN_IF_ERROR(
        ParseSecretBlock(basic, "auth.basic", auth.mutable_basic()->mutable_secret_name()));
  }
  if (const YAML::Node bearer = node["bearer"]; YamlPresent(bearer)) {
    RETURN_IF_ERROR(
        ParseSecretBlock(bearer, "auth.bearer", auth.mutable_bearer()->mutable_secret_name()));
  }
  if (const YAML::Node ssh = node["sshKey"]; YamlPresent(ssh)) {
    constexpr char kSshPath[] = "auth.sshKey";
    RETURN_IF_ERROR(YamlCheckKeys(ssh, kSshPath, {"secretName", "knownHostsRef"}));
    v1::SshKeySourceAuth& ssh_key = *auth.mutable_ssh_key();
    RETURN_IF_ERROR(
        OptionalSourceString(ssh, kSshPath, "secretName", ssh_key.mutable_secret_name()));
    if (const YAML::Node ref = ssh["knownHostsRef"]; YamlPresent(ref)) {
      RETURN_IF_ERROR(
          ParseObjectRef(ref, "auth.sshKey.knownHostsRef", *ssh_key.mutable_known_hosts_ref()));
    }
  }
  return absl::OkStatus();
}

absl::Status ParseTls(const YAML::Node& node, v1::SourceTls& tls) {
  constexpr char kPath[] = "tls";
  RETURN_IF_ERROR(YamlCheckKeys(node, kPath, {"insecureSkipVerify", "caPublicCertRef"}));
  if (const YAML::Node insecure = node["insecureSkipVerify"]; YamlPresent(insecure)) {
    ASSIGN_OR_RETURN(const bool value, YamlBool(insecure, "tls.insecureSkipVerify"));
    tls.set_insecure_skip_verify(value);
  }
  if (const YAML::Node ref = node["caPublicCertRef"]; YamlPresent(ref)) {
    RETURN_IF_ERROR(ParseObjectRef(ref, "tls.caPublicCertRef", *tls.mutable_ca_public_cert_ref()));
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::SourceSpec> ParseSourceSpecNode(const YAML::Node& root) {
  RETURN_IF_ERROR(YamlCheckKeys(root, "", {"kind", "url", "namespace", "auth", "tls"}));
  v1::SourceSpec spec;
  std::string kind;
  RETURN_IF_ERROR(OptionalSourceString(root, "", "kind", &kind));
  if (!kind.empty()) {
    ASSIGN_OR_RETURN(const v1::SourceKind parsed, ParseKind("kind", kind));
    spec.set_kind(parsed);
  }
  RETURN_IF_ERROR(OptionalSourceString(root, "", "url", spec.mutable_url()));
  RETURN_IF_ERROR(OptionalSourceString(root, "", "namespace", spec.mutable_namespace_()));
  if (const YAML::Node auth = root["auth"]; YamlPresent(auth)) {
    RETURN_IF_ERROR(ParseSourceAuth(auth, *spec.mutable_auth()));
  } else {
    spec.mutable_auth()->set_type(kubebridge::kSourceAuthNone);
  }
  if (const YAML::Node tls = root["tls"]; YamlPresent(tls)) {
    RETURN_IF_ERROR(ParseTls(tls, *spec.mutable_tls()));
  }
  return spec;
}

// ---- The command -------------------------------------------------------------------------

class SourceVerifyCommand final : public ClientCommand {
 public:
  int Run(const std::vector<std::string>&, std::ostream& out, std::ostream& err) override {
    if (const int checked = CheckRequestIdFlag(flags_->Given("request-id"), request_id_, err);
        checked != kExitOk) {
      return checked;
    }
    if (name_.empty()) {
      err << "error: --name: required (names the source in the log)\n";
      return kExitUsage;
    }
    v1::VerifySourceRequest request;
    request.set_name(name_);
    if (const int prepared = PrepareSource(request, err); prepared != kExitOk) return prepared;
    absl::StatusOr<std::string> request_id = RequestIdOrNew(request_id_, err);
    if (!request_id.ok()) return ReportError(request_id.status(), err);
    request.set_request_id(*request_id);
    v1::VerifySourceResponse response;
    if (absl::Status status = Call(&SourceStub::VerifySource, request, &response); !status.ok()) {
      return ReportError(status, err);
    }
    if (const int printed = Print(response, FormatVerifySourceText(request, response), out, err);
        printed != kExitOk) {
      return printed;
    }
    return VerifySourceExitCode(response);
  }

 private:
  void DefineOwnFlags(FlagSet& flags) override {
    flags_ = &flags;
    flags.Add("name", &name_,
              "names the source in the log: stream source/<namespace>/<name> (required)");
    flags.AddChoice("kind", &spec_flags_.kind, {"git", "helm", "oci"}, "the source's kind");
    flags.Add("url", &spec_flags_.url,
              "the source's address, without a query or fragment; credentials go in --auth and "
              "--secret, never in the URL");
    flags.Add("namespace", &spec_flags_.source_namespace,
              "namespace of the Secrets and ConfigMaps (default \"default\")");
    flags.Add("auth", &spec_flags_.auth,
              "auth type: none, basic, bearer or sshKey (case-sensitive; other types are sent "
              "and answered Unsupported)");
    flags.Add("secret", &spec_flags_.secret,
              "Secret with the credentials of --auth basic (username, password), bearer (token) "
              "or sshKey (identity, password)");
    flags.Add("known-hosts-configmap", &spec_flags_.known_hosts_configmap,
              "ConfigMap with the known_hosts data (--auth sshKey)");
    flags.Add("known-hosts-secret", &spec_flags_.known_hosts_secret,
              "Secret with the known_hosts data (--auth sshKey)");
    flags.Add("known-hosts-key", &spec_flags_.known_hosts_key,
              "key of the known_hosts data (default known_hosts)");
    flags.Add("ca-configmap", &spec_flags_.ca_configmap,
              "ConfigMap with the CA bundle to trust instead of the system store (https:// and "
              "oci:// URLs)");
    flags.Add("ca-secret", &spec_flags_.ca_secret,
              "Secret with the CA bundle to trust instead of the system store (https:// and "
              "oci:// URLs)");
    flags.Add("ca-key", &spec_flags_.ca_key, "key of the CA bundle (default ca.crt)");
    flags.Add("insecure-skip-tls-verify", &spec_flags_.insecure_skip_tls_verify,
              "do not verify the server's certificate (https:// and oci:// URLs; SSH has no "
              "TLS)");
    flags.Add("file", &file_, "read the source from this YAML file instead of the flags");
    flags.AddAlias('f', "file");
    flags.Add("request-id", &request_id_,
              "idempotency key of the call; generated and printed when absent");
  }

  // Fills `request.source` from the flags or the file; kExitOk, or the exit code after
  // printing why not.
  int PrepareSource(v1::VerifySourceRequest& request, std::ostream& err) const {
    if (!flags_->Given("file")) {
      absl::StatusOr<v1::SourceSpec> spec = SourceSpecFromFlags(spec_flags_);
      if (!spec.ok()) {
        err << "error: " << spec.status().message() << "\n";
        return kExitUsage;
      }
      *request.mutable_source() = *std::move(spec);
      return kExitOk;
    }
    for (const char* flag : kSpecFlags) {
      if (flags_->Given(flag)) {
        err << "error: -f and --" << flag << " are exclusive: the file describes the source\n";
        return kExitUsage;
      }
    }
    absl::StatusOr<v1::SourceSpec> spec = ReadSpecFile(file_, &ParseSourceSpecNode);
    if (!spec.ok()) return ReportError(spec.status(), err);
    *request.mutable_source() = *std::move(spec);
    return kExitOk;
  }

  const FlagSet* flags_ = nullptr;  // the set DefineOwnFlags filled; outlives Run
  std::string name_;
  SourceFlags spec_flags_;
  std::string file_;
  std::string request_id_;
};

constexpr char kSourceVerifyDescription[] =
    "Asks the service to check a Git, Helm or OCI source's address and credentials: Git\n"
    "lists the remote's refs, Helm downloads index.yaml, OCI sends GET /v2/ (200 and 401\n"
    "pass, so OCI credentials are only checked at the first pull). Credentials are read by\n"
    "the service from Secrets in the source's namespace; the outcome is recorded in the log\n"
    "(stream source/<namespace>/<name>) with the URL and auth type, never the credential.\n"
    "\n"
    "With -f, the source comes from a YAML file:\n"
    "  kind: git\n"
    "  url: ssh://git@example.com/org/repo.git\n"
    "  namespace: flux-system\n"
    "  auth:\n"
    "    type: sshKey                # none, basic, bearer or sshKey\n"
    "    basic: {secretName: NAME}   # only with type basic\n"
    "    bearer: {secretName: NAME}  # only with type bearer\n"
    "    sshKey:                     # only with type sshKey\n"
    "      secretName: NAME\n"
    "      knownHostsRef: {kind: ConfigMap, name: NAME, key: known_hosts}\n"
    "  tls:                          # only with https:// and oci:// URLs\n"
    "    insecureSkipVerify: false\n"
    "    caPublicCertRef: {kind: Secret, name: NAME, key: ca.crt}\n"
    "Empty YAML documents, such as after a final ---, are skipped.\n"
    "\n"
    "Exit codes:\n"
    "  0  Verified\n"
    "  1  the call failed (error: <CODE>: <message>), or the file could not be read\n"
    "  2  usage error; nothing was sent\n"
    "  3  VerifyFailed: the check failed; a retry may succeed\n"
    "  4  Unsupported: retrying cannot help until the source's spec changes\n";

}  // namespace

absl::StatusOr<v1::SourceSpec> SourceSpecFromFlags(const SourceFlags& flags) {
  v1::SourceSpec spec;
  if (flags.kind.empty()) return absl::InvalidArgumentError("--kind: required (git, helm or oci)");
  ASSIGN_OR_RETURN(const v1::SourceKind kind, ParseKind("--kind", flags.kind));
  spec.set_kind(kind);
  if (flags.url.empty()) return absl::InvalidArgumentError("--url: required");
  spec.set_url(flags.url);
  spec.set_namespace_(flags.source_namespace);
  RETURN_IF_ERROR(FillAuthFromFlags(flags, *spec.mutable_auth()));
  ASSIGN_OR_RETURN(std::optional<v1::ObjectKeyRef> ca,
                   RefFromFlags("ca", flags.ca_configmap, flags.ca_secret, flags.ca_key));
  if (ca.has_value()) *spec.mutable_tls()->mutable_ca_public_cert_ref() = *std::move(ca);
  if (flags.insecure_skip_tls_verify) spec.mutable_tls()->set_insecure_skip_verify(true);
  return spec;
}

absl::StatusOr<v1::SourceSpec> ParseSourceSpecYaml(absl::string_view yaml) {
  return ParseSpecYaml(yaml, &ParseSourceSpecNode);
}

int VerifySourceExitCode(const v1::VerifySourceResponse& response) {
  const std::string& reason = response.result().reason();
  if (reason == kubebridge::kReasonVerified) return kExitOk;
  if (reason == kubebridge::kReasonVerifyFailed) return kExitCheckFailed;
  if (reason == kubebridge::kReasonUnsupported) return kExitUnsupported;
  return kExitFailure;
}

void AddSourceCommands(Dispatcher& dispatcher) {
  dispatcher.Add({"source verify", "",
                  "verify a Git, Helm or OCI source's address and credentials from the service", 0,
                  0, [] { return std::make_unique<SourceVerifyCommand>(); },
                  kSourceVerifyDescription});
}

}  // namespace credledger::cli
