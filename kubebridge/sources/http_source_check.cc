#include "kubebridge/sources/http_source_check.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "common/yaml_text.h"
#include "kubebridge/client/curl_transport.h"
#include "kubebridge/model/connection_errors.h"

namespace credledger::kubebridge {
namespace {

// Largest /v2/ answer read from a registry (its body is not used).
constexpr size_t kMaxRegistryBodyBytes = size_t{1} << 20;

// An absolute URL split into the parts the checks use. Userinfo is dropped on parsing.
struct Url {
  std::string scheme;  // lowercased; empty when the text has no "://"
  std::string host;    // lowercased; IPv6 literals keep their brackets
  int port = 0;        // explicit port, else the scheme's default (443, or 80 for http)
  std::string rest;    // everything after the authority: path, query, fragment
  std::string display;  // the text without its userinfo part, for messages

  // "host" for port 443, else "host:port".
  std::string HostLabel() const {
    return port == 443 ? host : absl::StrCat(host, ":", port);
  }
};

// Splits `text` ("scheme://[userinfo@]host[:port][rest]").
// Errors: kInvalidArgument for an empty host or a port that is not 1..65535.
absl::StatusOr<Url> ParseUrl(absl::string_view text) {
  Url url;
  size_t scheme_end = text.find("://");
  if (scheme_end == absl::string_view::npos) {
    url.display = std::string(text);
    return url;
  }
  url.scheme = absl::AsciiStrToLower(text.substr(0, scheme_end));
  size_t authority_start = scheme_end + 3;
  size_t authority_end = text.find_first_of("/?#", authority_start);
  if (authority_end == absl::string_view::npos) authority_end = text.size();
  absl::string_view authority = text.substr(authority_start, authority_end - authority_start);
  size_t at = authority.rfind('@');
  if (at != absl::string_view::npos) authority.remove_prefix(at + 1);
  url.rest = std::string(text.substr(authority_end));
  url.display = absl::StrCat(text.substr(0, authority_start), authority, url.rest);

  absl::string_view host = authority;
  absl::string_view port;
  size_t bracket = authority.rfind(']');
  size_t colon = authority.rfind(':');
  if (colon != absl::string_view::npos && (bracket == absl::string_view::npos || colon > bracket)) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (host.empty()) {
    return UnsupportedError(absl::StrCat("URL \"", url.display, "\" has no host"));
  }
  url.host = absl::AsciiStrToLower(host);
  url.port = url.scheme == "http" ? 80 : 443;
  if (!port.empty() && (!std::all_of(port.begin(), port.end(), absl::ascii_isdigit) ||
                        !absl::SimpleAtoi(port, &url.port) || url.port < 1 || url.port > 65535)) {
    return UnsupportedError(
        absl::StrCat("URL \"", url.display, "\" has an invalid port \"", port, "\""));
  }
  return url;
}

// "https://host[:port]" of `url`, the origin every request goes to.
std::string HttpsOrigin(const Url& url) { return absl::StrCat("https://", url.HostLabel()); }

// The error of an answer that is not a pass, for request `what` ("GET <url>").
absl::Status HttpError(absl::string_view what, int code, const HttpSourceCredentials& creds) {
  std::string message = absl::StrCat(what, ": HTTP ", code);
  if (code == 401) {
    return absl::UnauthenticatedError(
        absl::StrCat(message, creds.kind == HttpSourceCredentials::Kind::kNone
                                  ? " (the server requires credentials)"
                                  : " (the server refused the credentials)"));
  }
  if (code == 403) return absl::PermissionDeniedError(message);
  if (code == 404) return absl::NotFoundError(message);
  if (code == 429 || (code >= 500 && code < 600)) return absl::UnavailableError(message);
  if (code >= 300 && code < 400) {
    return absl::InvalidArgumentError(absl::StrCat(message, " (redirects are not followed)"));
  }
  return absl::InvalidArgumentError(message);
}

// GET `origin_and_prefix` + `path` with the credentials; returns the response whatever its
// status. Transport errors keep their code (kResourceExhausted becomes kInvalidArgument) and
// are reworded to start with `what`.
absl::StatusOr<HttpResponse> Fetch(const std::string& origin_and_prefix, const std::string& path,
                                   absl::string_view what,
                                   const HttpSourceCredentials& credentials,
                                   const HttpSourceOptions& options, size_t max_body_bytes,
                                   Cancellation* cancel) {
  ConnectionConfig config;
  config.server = origin_and_prefix;
  config.ca_pem = options.ca_pem;
  config.insecure_skip_tls_verify = options.insecure_skip_tls_verify;
  config.source = "source check";
  switch (credentials.kind) {
    case HttpSourceCredentials::Kind::kNone:
      break;
    case HttpSourceCredentials::Kind::kBasic:
      config.basic_username = credentials.username;
      config.basic_password = credentials.password;
      break;
    case HttpSourceCredentials::Kind::kBearer:
      // The token becomes a header line: a line break in it would inject headers.
      if (std::any_of(credentials.token.begin(), credentials.token.end(),
                      [](char c) { return absl::ascii_iscntrl(c); })) {
        return absl::InvalidArgumentError(
            absl::StrCat(what, ": the bearer token contains a control character"));
      }
      config.token = credentials.token;
      break;
  }
  CurlTransportOptions transport_options;
  transport_options.connect_timeout = std::min(absl::Seconds(10), options.timeout);
  transport_options.max_body_bytes = max_body_bytes;
  transport_options.max_idle_handles = 0;
  transport_options.user_agent = "credledger-source-verify";
  ASSIGN_OR_RETURN(std::unique_ptr<CurlTransport> transport,
                   CurlTransport::New(std::move(config), transport_options));
  HttpRequest request;
  request.method = "GET";
  request.path = path;
  request.timeout = options.timeout;
  Cancellation never_cancelled;
  absl::StatusOr<HttpResponse> response =
      transport->RoundTrip(request, cancel == nullptr ? never_cancelled : *cancel, nullptr);
  if (response.ok()) return response;
  absl::string_view detail = response.status().message();
  std::string label = absl::StrCat(RequestLabel(request), ": ");
  if (absl::StartsWith(detail, label)) detail.remove_prefix(label.size());
  absl::StatusCode code = response.status().code() == absl::StatusCode::kResourceExhausted
                              ? absl::StatusCode::kInvalidArgument
                              : response.status().code();
  return absl::Status(code, absl::StrCat(what, ": ", detail));
}

// What a Helm index holds, for the result.
struct IndexSummary {
  int charts = 0;
  int versions = 0;
  std::vector<std::string> chart_urls;
};

// Parses `body` as a Helm repository index (loaded by common::LoadYaml, at most `max_bytes`).
// Errors: kInvalidArgument when it is not YAML, exceeds a bound, or is not a mapping with
// apiVersion and entries (a mapping of chart names to lists of versions).
absl::StatusOr<IndexSummary> ParseIndex(const std::string& body, size_t max_bytes) {
  absl::StatusOr<YAML::Node> loaded = common::LoadYaml(body, max_bytes);
  if (!loaded.ok()) return Annotate(loaded.status(), "index.yaml");
  const YAML::Node& root = *loaded;
  IndexSummary summary;
  try {
    if (!root.IsMap() || !root["apiVersion"] || !root["entries"]) {
      return absl::InvalidArgumentError(
          "index.yaml is not a Helm repository index (a mapping with apiVersion and entries)");
    }
    const YAML::Node entries = root["entries"];
    if (!entries.IsMap() && !entries.IsNull()) {
      return absl::InvalidArgumentError("index.yaml: entries is not a mapping");
    }
    for (const auto& entry : entries) {
      std::string name = entry.first.Scalar();
      if (!entry.second.IsSequence()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "index.yaml: entries.\"", name, "\" is not a list of chart versions"));
      }
      ++summary.charts;
      for (const YAML::Node& version : entry.second) {
        ++summary.versions;
        if (!version.IsMap() || !version["urls"].IsSequence()) continue;
        for (const YAML::Node& url : version["urls"]) {
          if (url.IsScalar()) summary.chart_urls.push_back(url.Scalar());
        }
      }
    }
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("index.yaml is not valid YAML: ", e.what()));
  }
  return summary;
}

// The hosts other than `repository`'s that `chart_urls` point to, sorted. Relative URLs
// are on the repository host; "//host/..." is on `host` (resolved against the repository's
// scheme, as Helm does); unparsable URLs are skipped.
std::set<std::string> OtherHosts(const Url& repository,
                                 const std::vector<std::string>& chart_urls) {
  std::set<std::string> hosts;
  for (const std::string& text : chart_urls) {
    std::string absolute = text;
    if (absl::StartsWith(text, "//")) {
      absolute = absl::StrCat(repository.scheme, ":", text);
    } else if (text.find("://") == std::string::npos) {
      continue;
    }
    absl::StatusOr<Url> url = ParseUrl(absolute);
    if (!url.ok()) continue;
    if (url->host != repository.host || url->port != repository.port) {
      hosts.insert(url->HostLabel());
    }
  }
  return hosts;
}

// A Helm repository URL: https:// with a host, without a query or fragment.
absl::StatusOr<Url> HelmUrl(absl::string_view url_text) {
  ASSIGN_OR_RETURN(Url url, ParseUrl(url_text));
  const std::string prefix = absl::StrCat("helm repository \"", url.display, "\"");
  if (url.scheme != "https") {
    return UnsupportedError(absl::StrCat(prefix, ": only https:// URLs are supported"));
  }
  if (url.rest.find_first_of("?#") != std::string::npos) {
    return UnsupportedError(absl::StrCat(prefix, ": a repository URL has no query or fragment"));
  }
  return url;
}

// An OCI registry URL: oci:// or https:// with a host.
absl::StatusOr<Url> OciUrl(absl::string_view url_text) {
  ASSIGN_OR_RETURN(Url url, ParseUrl(url_text));
  if (url.scheme != "oci" && url.scheme != "https") {
    return UnsupportedError(absl::StrCat("oci registry \"", url.display,
                                         "\": only oci:// and https:// URLs are supported"));
  }
  return url;
}

std::string Plural(int n, absl::string_view noun) {
  return absl::StrCat(n, " ", noun, n == 1 ? "" : "s");
}

}  // namespace

absl::Status CheckHelmRepositoryUrl(absl::string_view url) { return HelmUrl(url).status(); }

absl::Status CheckOciRegistryUrl(absl::string_view url) { return OciUrl(url).status(); }

absl::StatusOr<HttpSourceCheck> VerifyHelmRepository(absl::string_view url_text,
                                                     const HttpSourceCredentials& credentials,
                                                     const HttpSourceOptions& options,
                                                     Cancellation* cancel) {
  ASSIGN_OR_RETURN(Url url, HelmUrl(url_text));
  std::string prefix = absl::StrCat("helm repository \"", url.display, "\"");
  std::string path_prefix = url.rest;
  while (!path_prefix.empty() && path_prefix.back() == '/') path_prefix.pop_back();
  std::string origin_and_prefix = HttpsOrigin(url) + path_prefix;
  std::string what = absl::StrCat(prefix, ": GET ", origin_and_prefix, "/index.yaml");
  ASSIGN_OR_RETURN(HttpResponse response,
                   Fetch(origin_and_prefix, "/index.yaml", what, credentials, options,
                         options.max_index_bytes, cancel));
  if (response.status_code != 200) return HttpError(what, response.status_code, credentials);
  absl::StatusOr<IndexSummary> index = ParseIndex(response.body, options.max_index_bytes);
  if (!index.ok()) return Annotate(index.status(), what);

  HttpSourceCheck check;
  check.message = absl::StrCat("index.yaml lists ", Plural(index->charts, "chart"), " (",
                               Plural(index->versions, "version"), ")");
  if (credentials.kind != HttpSourceCredentials::Kind::kNone) {
    for (const std::string& host : OtherHosts(url, index->chart_urls)) {
      check.notes.push_back(
          absl::StrCat("chart URLs point to ", host, ", which would also receive the credentials"));
    }
  }
  return check;
}

absl::StatusOr<HttpSourceCheck> VerifyOciRegistry(absl::string_view url_text,
                                                  const HttpSourceCredentials& credentials,
                                                  const HttpSourceOptions& options,
                                                  Cancellation* cancel) {
  ASSIGN_OR_RETURN(Url url, OciUrl(url_text));
  std::string prefix = absl::StrCat("oci registry \"", url.display, "\"");
  std::string origin = HttpsOrigin(url);
  std::string what = absl::StrCat(prefix, ": GET ", origin, "/v2/");
  ASSIGN_OR_RETURN(HttpResponse response, Fetch(origin, "/v2/", what, credentials, options,
                                                kMaxRegistryBodyBytes, cancel));
  if (response.status_code != 200 && response.status_code != 401) {
    return HttpError(what, response.status_code, credentials);
  }
  HttpSourceCheck check;
  check.message = absl::StrCat("registry answered ", response.status_code);
  // /v2/ answers 200 to anonymous callers on many registries and 401 before any token
  // exchange: either way the credentials themselves were not checked.
  if (response.status_code == 401 || credentials.kind != HttpSourceCredentials::Kind::kNone) {
    check.notes.push_back("the credentials are only checked at the first pull");
  }
  return check;
}

}  // namespace credledger::kubebridge
