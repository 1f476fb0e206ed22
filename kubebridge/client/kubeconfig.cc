#include "kubebridge/client/kubeconfig.h"

#include <algorithm>
#include <optional>
#include <string>
#include <system_error>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/file_util.h"
#include "common/status_macros.h"
#include "common/yaml_text.h"
#include "yaml-cpp/yaml.h"

namespace credledger::kubebridge {
namespace {

// One "<kind> \"<name>\"" scope of a message, e.g. `cluster "b"`.
std::string Scope(absl::string_view kind, absl::string_view name) {
  return absl::StrCat(kind, " \"", name, "\"");
}

class KubeconfigParser {
 public:
  KubeconfigParser(const std::filesystem::path& path, KubeconfigFiles files)
      : path_(path), files_(files) {
    std::error_code error;
    std::filesystem::path absolute = std::filesystem::absolute(path, error);
    base_dir_ = (error ? path : absolute).parent_path();
  }

  absl::StatusOr<ConnectionConfig> Parse(const YAML::Node& root, absl::string_view context) {
    if (!root.IsMap()) return Invalid("", "the document is not a mapping");
    std::string context_name(context);
    if (context_name.empty()) {
      ASSIGN_OR_RETURN(context_name, OptionalString(root, "current-context", ""));
      if (context_name.empty()) {
        return Invalid("", "no context was requested and current-context is not set");
      }
    }
    std::string context_scope = Scope("context", context_name);
    ASSIGN_OR_RETURN(YAML::Node ctx, FindNamed(root, "contexts", "context", context_name));
    ASSIGN_OR_RETURN(std::string cluster_name, OptionalString(ctx, "cluster", context_scope));
    if (cluster_name.empty()) return Invalid(context_scope, "cluster is not set");
    ASSIGN_OR_RETURN(std::string user_name, OptionalString(ctx, "user", context_scope));

    ConnectionConfig config;
    config.source = absl::StrCat("kubeconfig ", path_.string(), " ", context_scope);
    ASSIGN_OR_RETURN(config.default_namespace, OptionalString(ctx, "namespace", context_scope));
    absl::StatusOr<YAML::Node> cluster = FindNamed(root, "clusters", "cluster", cluster_name);
    if (!cluster.ok()) return WithScope(context_scope, cluster.status());
    RETURN_IF_ERROR(ParseCluster(*cluster, Scope("cluster", cluster_name), config));
    if (!user_name.empty()) {
      absl::StatusOr<YAML::Node> user = FindNamed(root, "users", "user", user_name);
      if (!user.ok()) return WithScope(context_scope, user.status());
      RETURN_IF_ERROR(ParseUser(*user, Scope("user", user_name), config));
    }
    return config;
  }

  absl::Status Error(absl::StatusCode code, absl::string_view scope, absl::string_view text) const {
    return absl::Status(code, absl::StrCat("kubeconfig ", path_.string(), ": ", scope,
                                           scope.empty() ? "" : ": ", text));
  }
  absl::Status Invalid(absl::string_view scope, absl::string_view text) const {
    return Error(absl::StatusCode::kInvalidArgument, scope, text);
  }

 private:
  // Re-prefixes a "kubeconfig <path>: <rest>" error as "kubeconfig <path>: <scope>: <rest>".
  absl::Status WithScope(absl::string_view scope, const absl::Status& status) const {
    std::string prefix = absl::StrCat("kubeconfig ", path_.string(), ": ");
    absl::string_view rest = status.message();
    if (rest.substr(0, prefix.size()) == prefix) rest.remove_prefix(prefix.size());
    return Error(status.code(), scope, rest);
  }

  // Finds the entry named `name` in the list `list_key` and returns its `item_key` map.
  absl::StatusOr<YAML::Node> FindNamed(const YAML::Node& root, const char* list_key,
                                       const char* item_key, const std::string& name) const {
    std::string scope = Scope(item_key, name);
    YAML::Node list = root[list_key];
    bool present = list.IsDefined() && !list.IsNull();
    if (present && !list.IsSequence()) {
      return Invalid("", absl::StrCat(list_key, " must be a list"));
    }
    // yaml-cpp's Node::operator= writes through to the tree; keep matches in an optional.
    std::optional<YAML::Node> found;
    int matches = 0;
    if (present) {
      for (const YAML::Node& entry : list) {
        if (!entry.IsMap()) return Invalid("", absl::StrCat(list_key, ": entry is not a mapping"));
        ASSIGN_OR_RETURN(std::string entry_name, OptionalString(entry, "name", list_key));
        if (entry_name != name) continue;
        ++matches;
        found.emplace(entry[item_key]);
      }
    }
    if (matches == 0) return Invalid("", absl::StrCat(scope, " not found"));
    if (matches > 1) return Invalid("", absl::StrCat(scope, " is defined more than once"));
    if (!found->IsDefined() || found->IsNull()) return YAML::Node(YAML::NodeType::Map);
    if (!found->IsMap()) return Invalid(scope, absl::StrCat(item_key, " must be a mapping"));
    return *found;
  }

  // The string value of `key` in `map`; "" when absent or null.
  absl::StatusOr<std::string> OptionalString(const YAML::Node& map, const char* key,
                                             absl::string_view scope) const {
    YAML::Node value = map[key];
    if (!value.IsDefined() || value.IsNull()) return std::string();
    if (!value.IsScalar()) return Invalid(scope, absl::StrCat(key, " must be a string"));
    return value.Scalar();
  }

  absl::StatusOr<bool> OptionalBool(const YAML::Node& map, const char* key,
                                    absl::string_view scope) const {
    YAML::Node value = map[key];
    if (!value.IsDefined() || value.IsNull()) return false;
    bool result = false;
    if (!value.IsScalar() || !YAML::convert<bool>::decode(value, result)) {
      return Invalid(scope, absl::StrCat(key, " must be true or false"));
    }
    return result;
  }

  // `data_key` (base64, decoded) when set, else the content of the file `file_key` (a
  // relative path resolved against the kubeconfig's folder), else "".
  // With KubeconfigFiles::kRefuse a set `file_key` is an error even next to `data_key`.
  absl::StatusOr<std::string> DataOrFile(const YAML::Node& map, const char* data_key,
                                         const char* file_key, absl::string_view scope) const {
    ASSIGN_OR_RETURN(std::string file, OptionalString(map, file_key, scope));
    if (!file.empty()) RETURN_IF_ERROR(CheckFileAllowed(file_key, scope));
    ASSIGN_OR_RETURN(std::string data, OptionalString(map, data_key, scope));
    if (!data.empty()) {
      data.erase(std::remove_if(data.begin(), data.end(),
                                [](unsigned char c) { return absl::ascii_isspace(c); }),
                 data.end());
      std::string decoded;
      if (!absl::Base64Unescape(data, &decoded) || decoded.empty()) {
        return Invalid(scope, absl::StrCat(data_key, " is not valid base64"));
      }
      return decoded;
    }
    if (file.empty()) return std::string();
    absl::StatusOr<std::string> content = common::ReadSmallFile(Resolve(file));
    if (!content.ok()) {
      return Error(content.status().code(), scope,
                   absl::StrCat(file_key, ": ", content.status().message()));
    }
    return content;
  }

  // kUnimplemented naming `file_key` when files may not be read (KubeconfigFiles::kRefuse).
  absl::Status CheckFileAllowed(absl::string_view file_key, absl::string_view scope) const {
    if (files_ == KubeconfigFiles::kRead) return absl::OkStatus();
    return Error(absl::StatusCode::kUnimplemented, scope,
                 absl::StrCat(file_key, " names a file; this kubeconfig may not refer to files"));
  }

  // kUnimplemented naming `path` (the field's place in a kubeconfig) when `key` of `map` is
  // set (not null, not an empty string, list or mapping): a field credledger does not
  // honour, which would otherwise be ignored and change what the connection does.
  absl::Status RefuseSet(const YAML::Node& map, const char* key, absl::string_view path,
                         absl::string_view why, absl::string_view scope) const {
    YAML::Node value = map[key];
    const bool set = value.IsDefined() && !value.IsNull() &&
                     !(value.IsScalar() && value.Scalar().empty()) &&
                     !((value.IsSequence() || value.IsMap()) && value.size() == 0);
    if (!set) return absl::OkStatus();
    return Error(absl::StatusCode::kUnimplemented, scope,
                 absl::StrCat(path, " is not supported: ", why));
  }

  std::filesystem::path Resolve(const std::string& file) const {
    std::filesystem::path p(file);
    return p.is_relative() ? base_dir_ / p : p;
  }

  absl::Status ParseCluster(const YAML::Node& cluster, const std::string& scope,
                            ConnectionConfig& config) const {
    RETURN_IF_ERROR(RefuseSet(cluster, "proxy-url", "clusters[].cluster.proxy-url",
                              "credledger connects to the server directly, never through a proxy",
                              scope));
    RETURN_IF_ERROR(RefuseSet(cluster, "tls-server-name", "clusters[].cluster.tls-server-name",
                              "the server certificate is checked against the host of server",
                              scope));
    // Responses are never asked for compressed, so compression is off either way.
    RETURN_IF_ERROR(OptionalBool(cluster, "disable-compression", scope).status());
    ASSIGN_OR_RETURN(config.server, OptionalString(cluster, "server", scope));
    if (config.server.empty()) return Invalid(scope, "server is not set");
    if (!absl::StartsWithIgnoreCase(config.server, "https://") &&  // a scheme has no case
        !absl::StartsWithIgnoreCase(config.server, "http://")) {
      return Invalid(scope, absl::StrCat("server \"", config.server,
                                         "\" must start with https:// or http://"));
    }
    while (absl::EndsWith(config.server, "/")) config.server.pop_back();
    ASSIGN_OR_RETURN(config.ca_pem, DataOrFile(cluster, "certificate-authority-data",
                                               "certificate-authority", scope));
    ASSIGN_OR_RETURN(config.insecure_skip_tls_verify,
                     OptionalBool(cluster, "insecure-skip-tls-verify", scope));
    if (config.insecure_skip_tls_verify && !config.ca_pem.empty()) {
      return Invalid(scope,
                     "insecure-skip-tls-verify cannot be combined with a certificate authority");
    }
    return absl::OkStatus();
  }

  absl::Status ParseUser(const YAML::Node& user, const std::string& scope,
                         ConnectionConfig& config) const {
    for (const char* key : {"exec", "auth-provider"}) {
      if (user[key].IsDefined() && !user[key].IsNull()) {
        return Error(absl::StatusCode::kUnimplemented, scope,
                     absl::StrCat(key, " credentials are not supported"));
      }
    }
    if (user["username"].IsDefined() || user["password"].IsDefined()) {
      return Error(absl::StatusCode::kUnimplemented, scope,
                   "username/password credentials are not supported");
    }
    for (const char* key : {"as", "as-uid", "as-groups", "as-user-extra"}) {
      RETURN_IF_ERROR(RefuseSet(user, key, absl::StrCat("users[].user.", key),
                                "credledger does not impersonate; give the credentials of the "
                                "user to act as",
                                scope));
    }
    ASSIGN_OR_RETURN(config.token, OptionalString(user, "token", scope));
    ASSIGN_OR_RETURN(std::string token_file, OptionalString(user, "tokenFile", scope));
    if (!token_file.empty()) {
      RETURN_IF_ERROR(CheckFileAllowed("tokenFile", scope));
      config.token_file = Resolve(token_file);
      absl::StatusOr<std::string> token = common::ReadSmallFile(config.token_file);
      if (!token.ok()) {
        return Error(token.status().code(), scope,
                     absl::StrCat("tokenFile: ", token.status().message()));
      }
      // The file wins over an inline token once read (client-go's rule).
      absl::string_view trimmed = absl::StripAsciiWhitespace(*token);
      if (!trimmed.empty()) config.token = std::string(trimmed);
    }
    ASSIGN_OR_RETURN(config.client_certificate_pem,
                     DataOrFile(user, "client-certificate-data", "client-certificate", scope));
    ASSIGN_OR_RETURN(config.client_key_pem,
                     DataOrFile(user, "client-key-data", "client-key", scope));
    if (config.client_certificate_pem.empty() != config.client_key_pem.empty()) {
      return Invalid(scope, config.client_key_pem.empty()
                                ? "client-certificate is set but client-key is not"
                                : "client-key is set but client-certificate is not");
    }
    return absl::OkStatus();
  }

  std::filesystem::path path_;
  KubeconfigFiles files_;
  std::filesystem::path base_dir_;
};

}  // namespace

absl::StatusOr<ConnectionConfig> LoadKubeconfig(const std::filesystem::path& path,
                                                absl::string_view context) {
  absl::StatusOr<std::string> text = common::ReadSmallFile(path);
  if (!text.ok()) {
    return absl::Status(text.status().code(), absl::StrCat("kubeconfig ", text.status().message()));
  }
  return ParseKubeconfig(*text, path, context);
}

absl::StatusOr<ConnectionConfig> ParseKubeconfig(absl::string_view yaml,
                                                 const std::filesystem::path& path,
                                                 absl::string_view context,
                                                 KubeconfigFiles files) {
  KubeconfigParser parser(path, files);
  absl::StatusOr<YAML::Node> root = common::LoadYaml(yaml, common::kMaxConfigFileBytes);
  if (!root.ok()) return parser.Invalid("", root.status().message());
  try {
    return parser.Parse(*root, context);
  } catch (const YAML::Exception& e) {
    // Thrown while reading the nodes; the mark locates the problem, e.msg holds no content.
    return parser.Invalid("", absl::StrCat("not valid YAML at line ", e.mark.line + 1, ", column ",
                                           e.mark.column + 1, ": ", e.msg));
  } catch (const std::exception& e) {
    return parser.Invalid("", absl::StrCat("cannot parse: ", e.what()));
  }
}

}  // namespace credledger::kubebridge
