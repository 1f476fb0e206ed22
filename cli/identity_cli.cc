#include "cli/identity_cli.h"

#include <grpcpp/grpcpp.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "cli/client_command.h"
#include "cli/framework/spec_file.h"
#include "cli/framework/yaml_fields.h"
#include "cli/identity_printer.h"
#include "common/dns_label.h"
#include "common/status_macros.h"
#include "credledger/v1/api.grpc.pb.h"
#include "kubebridge/mirrors/consumer_pod_spec.h"

namespace credledger::cli {
namespace {

using IdentityStub = v1::IdentityService::Stub;

constexpr char kIdentityNameArg[] = "<name>";
constexpr char kOwnerHelp[] =
    "the object using the identity: <apiVersion>/<kind>/<name>, for example "
    "infrastructure.cluster.x-k8s.io/v1beta1/TerraformCluster/edge-1 or v1/ConfigMap/settings";

// ---- The spec file ---------------------------------------------------------------------

absl::StatusOr<std::vector<std::string>> Strings(const YAML::Node& node, absl::string_view path) {
  std::vector<std::string> out;
  if (!YamlPresent(node)) return out;
  if (!node.IsSequence()) return YamlInvalid(path, "must be a list of strings");
  for (size_t i = 0; i < node.size(); ++i) {
    ASSIGN_OR_RETURN(std::string value, YamlString(node[i], absl::StrCat(path, "[", i, "]")));
    out.push_back(std::move(value));
  }
  return out;
}

absl::Status ParseSelector(const YAML::Node& node, absl::string_view path,
                           v1::LabelSelector& selector) {
  RETURN_IF_ERROR(YamlCheckKeys(node, path, {"matchLabels", "matchExpressions"}));
  if (const YAML::Node labels = node["matchLabels"]; YamlPresent(labels)) {
    const std::string labels_path = YamlChild(path, "matchLabels");
    if (!labels.IsMap()) {
      return YamlInvalid(labels_path, "must be a mapping of label keys to values");
    }
    RETURN_IF_ERROR(YamlCheckUniqueKeys(labels, labels_path));
    for (const auto& item : labels) {
      v1::Label& label = *selector.add_match_labels();
      label.set_key(item.first.as<std::string>());
      ASSIGN_OR_RETURN(*label.mutable_value(),
                       YamlString(item.second, YamlChild(labels_path, label.key())));
    }
  }
  if (const YAML::Node exprs = node["matchExpressions"]; YamlPresent(exprs)) {
    const std::string exprs_path = YamlChild(path, "matchExpressions");
    if (!exprs.IsSequence()) return YamlInvalid(exprs_path, "must be a list");
    for (size_t i = 0; i < exprs.size(); ++i) {
      const std::string item_path = absl::StrCat(exprs_path, "[", i, "]");
      const YAML::Node expr = exprs[i];
      RETURN_IF_ERROR(YamlCheckKeys(expr, item_path, {"key", "operator", "values"}));
      v1::LabelSelectorRequirement& requirement = *selector.add_match_expressions();
      ASSIGN_OR_RETURN(*requirement.mutable_key(),
                       YamlString(expr["key"], YamlChild(item_path, "key")));
      ASSIGN_OR_RETURN(*requirement.mutable_operator_(),
                       YamlString(expr["operator"], YamlChild(item_path, "operator")));
      ASSIGN_OR_RETURN(std::vector<std::string> values,
                       Strings(expr["values"], YamlChild(item_path, "values")));
      for (std::string& value : values) requirement.add_values(std::move(value));
    }
  }
  return absl::OkStatus();
}

absl::Status ParseAllowed(const YAML::Node& node, v1::IdentitySpec& spec) {
  constexpr char kPath[] = "allowedNamespaces";
  // Present but empty stays present: the server explains `{}`.
  v1::AllowedNamespaces& allowed = *spec.mutable_allowed_namespaces();
  RETURN_IF_ERROR(YamlCheckKeys(node, kPath, {"list", "selector"}));
  ASSIGN_OR_RETURN(std::vector<std::string> list, Strings(node["list"], YamlChild(kPath, "list")));
  for (std::string& ns : list) allowed.add_list(std::move(ns));
  if (const YAML::Node selector = node["selector"]; YamlPresent(selector)) {
    RETURN_IF_ERROR(
        ParseSelector(selector, YamlChild(kPath, "selector"), *allowed.mutable_selector()));
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::IdentitySpec> ParseIdentitySpecNode(const YAML::Node& root) {
  RETURN_IF_ERROR(YamlCheckKeys(root, "", {"secretRef", "allowedNamespaces", "cluster"}));
  v1::IdentitySpec spec;
  if (const YAML::Node cluster = root["cluster"]; YamlPresent(cluster)) {
    ASSIGN_OR_RETURN(*spec.mutable_cluster(), YamlString(cluster, "cluster"));
  }
  if (const YAML::Node ref = root["secretRef"]; YamlPresent(ref)) {
    RETURN_IF_ERROR(YamlCheckKeys(ref, "secretRef", {"namespace", "name"}));
    v1::SourceSecretRef& secret = *spec.mutable_secret_ref();
    if (ref["namespace"].IsDefined()) {
      ASSIGN_OR_RETURN(*secret.mutable_namespace_(),
                       YamlString(ref["namespace"], "secretRef.namespace"));
    }
    if (ref["name"].IsDefined()) {
      ASSIGN_OR_RETURN(*secret.mutable_name(), YamlString(ref["name"], "secretRef.name"));
    }
  }
  if (const YAML::Node allowed = root["allowedNamespaces"]; YamlPresent(allowed)) {
    RETURN_IF_ERROR(ParseAllowed(allowed, spec));
  }
  return spec;
}

// ---- Commands ----------------------------------------------------------------------------

// A mutating identity subcommand; prints the identity after the change.
template <typename Request>
using IdentityMutation = MutationCommand<IdentityStub, Request, v1::IdentityChangeResponse>;

// identity create / identity update.
template <typename Request>
class SpecCommand final : public IdentityMutation<Request> {
 public:
  SpecCommand(typename IdentityMutation<Request>::Method method, std::string verb)
      : IdentityMutation<Request>(method, std::move(verb), &FormatIdentityChangeText) {}

 private:
  void DefineMutationFlags(FlagSet& flags) override {
    flags.Add("secret", &spec_flags_.secret, "the source Secret: <namespace>/<name>");
    flags.AddRepeated("allow-namespace", &spec_flags_.allow_namespaces,
                      "a namespace that may use the identity");
    flags.Add("allow-all-namespaces", &spec_flags_.allow_all_namespaces,
              "allow every namespace (selector: {})");
    flags.AddRepeated("match-label", &spec_flags_.match_labels,
                      "allow namespaces with this label: <key>=<value>");
    flags.Add("allow-no-namespaces", &spec_flags_.allow_no_namespaces,
              "allow no namespace; on update this revokes every namespace and so deletes "
              "every mirror");
    flags.Add("cluster", &spec_flags_.cluster,
              "mirror into this registered cluster (credledger cluster list) instead of the "
              "home cluster");
    flags.Add("file", &file_, "read the spec from this YAML file instead of the flags");
    flags.AddAlias('f', "file");
  }

  int Prepare(const std::string& name, Request& request, std::ostream& err) override {
    const FlagSet& flags = *this->flags_;
    request.set_name(name);
    if (flags.Given("cluster") && spec_flags_.cluster.empty()) {
      err << "error: --cluster: given but empty; leave it out to mirror into the home cluster\n";
      return kExitUsage;
    }
    if (!flags.Given("file")) {
      absl::StatusOr<v1::IdentitySpec> spec = SpecFromFlags(spec_flags_);
      if (!spec.ok()) {
        err << "error: " << spec.status().message() << "\n";
        return kExitUsage;
      }
      *request.mutable_spec() = *std::move(spec);
      return kExitOk;
    }
    if (flags.Given("secret") || flags.Given("allow-namespace") ||
        flags.Given("allow-all-namespaces") || flags.Given("match-label") ||
        flags.Given("allow-no-namespaces") || flags.Given("cluster")) {
      err << "error: -f and the spec flags (--secret, --allow-namespace, "
             "--allow-all-namespaces, --match-label, --allow-no-namespaces, --cluster) are "
             "exclusive\n";
      return kExitUsage;
    }
    absl::StatusOr<v1::IdentitySpec> spec = ReadSpecFile(file_, &ParseIdentitySpecNode);
    if (!spec.ok()) return ReportError(spec.status(), err);
    *request.mutable_spec() = *std::move(spec);
    return kExitOk;
  }

  IdentitySpecFlags spec_flags_;
  std::string file_;
};

class DeleteCommand final : public IdentityMutation<v1::DeleteIdentityRequest> {
 public:
  DeleteCommand()
      : MutationCommand(&IdentityStub::DeleteIdentity, "deleted", &FormatIdentityChangeText) {}

 private:
  int Prepare(const std::string& name, v1::DeleteIdentityRequest& request, std::ostream&) override {
    request.set_name(name);
    return kExitOk;
  }
};

// identity bind / identity unbind.
template <typename Request>
class BindingCommand final : public IdentityMutation<Request> {
 public:
  BindingCommand(typename IdentityMutation<Request>::Method method, std::string verb,
                 bool uid_required)
      : IdentityMutation<Request>(method, std::move(verb), &FormatIdentityChangeText),
        uid_required_(uid_required) {}

 private:
  void DefineMutationFlags(FlagSet& flags) override {
    flags.Add("namespace", &namespace_, "namespace of the object (required)");
    flags.Add("owner", &owner_, kOwnerHelp);
    flags.Add("owner-uid", &owner_uid_,
              uid_required_ ? "metadata.uid of the object, a lowercase RFC 4122 UUID (required)"
                            : "metadata.uid of the object; when given it must be the bound one");
  }

  int Prepare(const std::string& name, Request& request, std::ostream& err) override {
    const char* missing = namespace_.empty()                    ? "--namespace"
                          : owner_.empty()                      ? "--owner"
                          : uid_required_ && owner_uid_.empty() ? "--owner-uid"
                                                                : nullptr;
    if (missing != nullptr) {
      err << "error: " << missing << " is required\n";
      return kExitUsage;
    }
    absl::StatusOr<v1::OwnerReference> owner = ParseOwner(owner_);
    if (!owner.ok()) {
      err << "error: " << owner.status().message() << "\n";
      return kExitUsage;
    }
    owner->set_uid(owner_uid_);
    request.set_identity(name);
    request.set_namespace_(namespace_);
    *request.mutable_owner() = *std::move(owner);
    return kExitOk;
  }

  bool uid_required_;
  std::string namespace_;
  std::string owner_;
  std::string owner_uid_;
};

class IdentityGetCommand final : public ClientCommand {
 public:
  int Run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) override {
    v1::GetIdentityRequest request;
    request.set_name(args[0]);
    return CallAndPrint(
        &IdentityStub::GetIdentity, request,
        [](const v1::GetIdentityResponse& r) { return FormatIdentityText(r.identity()); }, out,
        err);
  }
};

class IdentityListCommand final : public ClientCommand {
 public:
  int Run(const std::vector<std::string>&, std::ostream& out, std::ostream& err) override {
    v1::ListIdentitiesRequest request;
    request.set_include_deleted(include_deleted_);
    return CallAndPrint(
        &IdentityStub::ListIdentities, request,
        [](const v1::ListIdentitiesResponse& r) {
          std::string text = FormatIdentityTableHeader();
          for (const v1::IdentityState& identity : r.identities()) {
            absl::StrAppend(&text, FormatIdentityRow(identity));
          }
          return text;
        },
        out, err);
  }

 private:
  void DefineOwnFlags(FlagSet& flags) override {
    flags.Add("include-deleted", &include_deleted_, "also list deleted identities");
  }
  bool include_deleted_ = false;
};

class MirrorsCommand final : public ClientCommand {
 public:
  int Run(const std::vector<std::string>&, std::ostream& out, std::ostream& err) override {
    v1::ListMirrorsRequest request;
    request.set_identity(identity_);
    request.set_namespace_(namespace_);
    return CallAndPrint(
        &IdentityStub::ListMirrors, request,
        [](const v1::ListMirrorsResponse& r) {
          std::string text = FormatMirrorTableHeader();
          for (const v1::MirrorView& mirror : r.mirrors()) {
            absl::StrAppend(&text, FormatMirrorRow(mirror));
          }
          return text;
        },
        out, err);
  }

 private:
  void DefineOwnFlags(FlagSet& flags) override {
    flags.Add("identity", &identity_, "only this identity's mirrors");
    flags.Add("namespace", &namespace_, "only mirrors in this namespace");
  }
  std::string identity_;
  std::string namespace_;
};

// Local: prints the Pod spec fragment for the identity's mirror.
class PodSpecCommand final : public Subcommand {
 public:
  void DefineFlags(FlagSet& flags) override {
    flags.Add("container", &container_, "name of the container that uses the credentials");
  }
  int Run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) override {
    for (const absl::Status& status : {common::ValidateDnsSubdomain("name", args[0]),
                                       common::ValidateDnsLabel("--container", container_)}) {
      if (!status.ok()) {
        err << "error: " << status.message() << "\n";
        return kExitUsage;
      }
    }
    out << kubebridge::ConsumerPodSpec(args[0], container_).dump(2) << "\n";
    return kExitOk;
  }

 private:
  std::string container_ = "main";
};

template <typename Request>
std::function<std::unique_ptr<Subcommand>()> Spec(typename IdentityMutation<Request>::Method method,
                                                  std::string verb) {
  return [=] { return std::make_unique<SpecCommand<Request>>(method, verb); };
}

template <typename Request>
std::function<std::unique_ptr<Subcommand>()> Binding(
    typename IdentityMutation<Request>::Method method, std::string verb, bool uid_required) {
  return [=] { return std::make_unique<BindingCommand<Request>>(method, verb, uid_required); };
}

constexpr char kIdentitySpecDescription[] =
    "The spec comes from the flags or, with -f, from a YAML file with the Kubernetes field\n"
    "names:\n"
    "  secretRef: {namespace: creds, name: aws}\n"
    "  cluster: edge-1        # optional: a registered cluster instead of the home one\n"
    "  allowedNamespaces:\n"
    "    list: [team-a]\n"
    "    selector:\n"
    "      matchLabels: {env: prod}\n"
    "      matchExpressions: [{key: tier, operator: In, values: [a, b]}]\n"
    "With flags, say which namespaces may use the identity: --allow-namespace,\n"
    "--match-label or --allow-all-namespaces, or --allow-no-namespaces for none (on update\n"
    "it revokes every namespace and deletes every mirror). A file without allowedNamespaces\n"
    "allows no namespace. The server runs an access review: the Kubernetes user the caller\n"
    "maps to must be able to get the source Secret.\n";

constexpr char kOwnerDescription[] =
    "--owner names the object as <apiVersion>/<kind>/<name>; apiVersion may hold a '/'\n"
    "(group/version): infrastructure.cluster.x-k8s.io/v1beta1/TerraformCluster/edge-1,\n"
    "v1/ConfigMap/settings.\n";

}  // namespace

absl::StatusOr<v1::IdentitySpec> SpecFromFlags(const IdentitySpecFlags& flags) {
  v1::IdentitySpec spec;
  if (flags.secret.empty()) {
    return absl::InvalidArgumentError(
        "--secret: required (<namespace>/<name> of the source Secret)");
  }
  const std::vector<std::string> secret = absl::StrSplit(flags.secret, '/');
  if (secret.size() != 2 || secret[0].empty() || secret[1].empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--secret: expected <namespace>/<name>, got \"", flags.secret, "\""));
  }
  spec.mutable_secret_ref()->set_namespace_(secret[0]);
  spec.mutable_secret_ref()->set_name(secret[1]);
  spec.set_cluster(flags.cluster);
  if (flags.allow_all_namespaces && !flags.match_labels.empty()) {
    return absl::InvalidArgumentError(
        "--allow-all-namespaces and --match-label are exclusive: every namespace already "
        "matches");
  }
  const bool some_allowed =
      !flags.allow_namespaces.empty() || flags.allow_all_namespaces || !flags.match_labels.empty();
  if (flags.allow_no_namespaces) {
    if (some_allowed) {
      return absl::InvalidArgumentError(
          "--allow-no-namespaces excludes --allow-namespace, --match-label and "
          "--allow-all-namespaces");
    }
    return spec;  // allowed_namespaces unset: no namespace
  }
  if (!some_allowed) {
    return absl::InvalidArgumentError(
        "allowed namespaces: none given; pass --allow-namespace, --match-label or "
        "--allow-all-namespaces, or --allow-no-namespaces to allow none (on update it revokes "
        "every namespace and deletes every mirror)");
  }
  v1::AllowedNamespaces& allowed = *spec.mutable_allowed_namespaces();
  for (const std::string& ns : flags.allow_namespaces) allowed.add_list(ns);
  if (flags.allow_all_namespaces) allowed.mutable_selector();
  for (const std::string& pair : flags.match_labels) {
    const size_t equals = pair.find('=');
    if (equals == std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("--match-label: expected <key>=<value>, got \"", pair, "\""));
    }
    v1::Label& label = *allowed.mutable_selector()->add_match_labels();
    label.set_key(pair.substr(0, equals));
    label.set_value(pair.substr(equals + 1));
  }
  return spec;
}

absl::StatusOr<v1::IdentitySpec> ParseIdentitySpecYaml(absl::string_view yaml) {
  return ParseSpecYaml(yaml, &ParseIdentitySpecNode);
}

absl::StatusOr<v1::OwnerReference> ParseOwner(absl::string_view text) {
  const std::vector<std::string> parts = absl::StrSplit(text, '/');
  const bool shaped =
      (parts.size() == 3 || parts.size() == 4) &&
      std::none_of(parts.begin(), parts.end(), [](const std::string& p) { return p.empty(); });
  if (!shaped) {
    return absl::InvalidArgumentError(
        absl::StrCat("--owner: expected <apiVersion>/<kind>/<name>, got \"", text, "\""));
  }
  v1::OwnerReference owner;
  owner.set_name(parts.back());
  owner.set_kind(parts[parts.size() - 2]);
  owner.set_api_version(absl::StrJoin(parts.begin(), parts.end() - 2, "/"));
  return owner;
}

void AddIdentityCommands(Dispatcher& d) {
  d.Add({"identity create", kIdentityNameArg, "create an identity that mirrors a source Secret", 1,
         1, Spec<v1::CreateIdentityRequest>(&IdentityStub::CreateIdentity, "created"),
         kIdentitySpecDescription});
  d.Add({"identity update", kIdentityNameArg, "replace an identity's spec", 1, 1,
         Spec<v1::UpdateIdentityRequest>(&IdentityStub::UpdateIdentity, "updated"),
         kIdentitySpecDescription});
  d.Add({"identity delete", kIdentityNameArg, "delete an identity that nothing uses", 1, 1,
         [] { return std::make_unique<DeleteCommand>(); }});
  d.Add({"identity get", kIdentityNameArg, "show an identity, its bindings, mirrors and conditions",
         1, 1, [] { return std::make_unique<IdentityGetCommand>(); }});
  d.Add({"identity list", "", "list identities", 0, 0,
         [] { return std::make_unique<IdentityListCommand>(); }});
  d.Add({"identity bind", kIdentityNameArg, "record that an object in a namespace uses an identity",
         1, 1,
         Binding<v1::BindIdentityRequest>(&IdentityStub::BindIdentity, "bound",
                                          /*uid_required=*/true),
         kOwnerDescription});
  d.Add({"identity unbind", kIdentityNameArg, "record that an object stopped using an identity", 1,
         1,
         Binding<v1::UnbindIdentityRequest>(&IdentityStub::UnbindIdentity, "unbound",
                                            /*uid_required=*/false),
         kOwnerDescription});
  d.Add({"identity mirrors", "", "list mirrors with their source fingerprint", 0, 0,
         [] { return std::make_unique<MirrorsCommand>(); }});
  d.Add({"identity pod-spec", kIdentityNameArg,
         "print the Pod spec fragment that delivers an identity's mirror (local)", 1, 1,
         [] { return std::make_unique<PodSpecCommand>(); },
         "Prints, as JSON, the volumes and containers to merge into a Pod template: envFrom\n"
         "the mirror Secret, and its files read-only at /var/run/captf/credentials (mode\n"
         "0440). Needs no server.\n"});
}

}  // namespace credledger::cli
