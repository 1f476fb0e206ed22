#include "kubebridge/sources/http_source_check.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <exception>
#include <initializer_list>
#include <memory>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "common/url.h"
#include "common/yaml_text.h"
#include "kubebridge/client/curl_transport.h"
#include "kubebridge/model/connection_errors.h"

namespace credledger::kubebridge {
namespace {

// Largest /v2/ answer read from a registry (its body is not used).
constexpr size_t kMaxRegistryBodyBytes = size_t{1} << 20;

// A source URL (common::ParseUrl) with what the checks use of it.
struct SourceUrl {
  std::string host;  // lowercased, without an IPv6 address's brackets
  int port = 0;      // explicit port, else the scheme's default (443, or 80 for http)
  std::string path;  // "/" when the URL has none
  bool query_or_fragment = false;
  std::string display;  // the URL without its userinfo, for messages

  // "host" for port 443, else "host:port"; an IPv6 address in brackets.
  std::string HostLabel() const {
    return port == 443 ? common::BracketedHost(host) : common::JoinHostPort(host, port);
  }
};

// What the checks use of `url`.
SourceUrl FromParts(const common::Url& url) {
  SourceUrl out;
  out.host = absl::AsciiStrToLower(url.host);
  out.port = url.port.value_or(url.scheme == "http" ? 80 : 443);
  out.path = url.path;
  out.query_or_fragment = url.query.has_value() || url.fragment.has_value();
  out.display = url.without_userinfo;
  return out;
}

// `text` split for a `what` ("helm repository") that takes the schemes `schemes` (written
// as `supported` in messages).
// Errors: UnsupportedError for a URL libcurl cannot read (no host, a bad port; the message
// quotes it without what may be a userinfo) and for another scheme, or none.
absl::StatusOr<SourceUrl> ParseSourceUrl(absl::string_view text, absl::string_view what,
                                         std::initializer_list<absl::string_view> schemes,
                                         absl::string_view supported) {
  const absl::StatusOr<common::Url> url = common::ParseUrl(text);
  if (!url.ok() && common::UrlFaultOf(url.status()) != common::UrlFault::kNoScheme) {
    return UnsupportedError(
        absl::StrCat("URL \"", common::RedactUnparsedUrl(text), "\" ", url.status().message()));
  }
  if (!url.ok() || std::find(schemes.begin(), schemes.end(), url->scheme) == schemes.end()) {
    return UnsupportedError(absl::StrCat(
        what, " \"", url.ok() ? url->without_userinfo : common::RedactUnparsedUrl(text),
        "\": only ", supported, " URLs are supported"));
  }
  return FromParts(*url);
}

// "https://host[:port]" of `url`, the origin every request goes to.
std::string HttpsOrigin(const SourceUrl& url) { return absl::StrCat("https://", url.HostLabel()); }

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

// The hosts other than `repository`'s that `chart_urls` point to, sorted. Chart URLs are
// read against the repository's URL `repository_text`, as Helm reads them (a relative URL is
// on the repository's host, "//host/..." on `host` with the repository's scheme); unparsable
// URLs are skipped.
std::set<std::string> OtherHosts(absl::string_view repository_text, const SourceUrl& repository,
                                 const std::vector<std::string>& chart_urls) {
  std::set<std::string> hosts;
  for (const std::string& text : chart_urls) {
    const absl::StatusOr<common::Url> url = common::ResolveUrl(repository_text, text);
    if (!url.ok()) continue;
    const SourceUrl chart = FromParts(*url);
    if (chart.host != repository.host || chart.port != repository.port) {
      hosts.insert(chart.HostLabel());
    }
  }
  return hosts;
}

// A Helm repository URL: https:// with a host, without a query or fragment.
absl::StatusOr<SourceUrl> HelmUrl(absl::string_view url_text) {
  ASSIGN_OR_RETURN(SourceUrl url,
                   ParseSourceUrl(url_text, "helm repository", {"https"}, "https://"));
  if (url.query_or_fragment) {
    return UnsupportedError(absl::StrCat("helm repository \"", url.display,
                                         "\": a repository URL has no query or fragment"));
  }
  return url;
}

// An OCI registry URL: oci:// or https:// with a host.
absl::StatusOr<SourceUrl> OciUrl(absl::string_view url_text) {
  return ParseSourceUrl(url_text, "oci registry", {"oci", "https"}, "oci:// and https://");
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
  ASSIGN_OR_RETURN(SourceUrl url, HelmUrl(url_text));
  std::string prefix = absl::StrCat("helm repository \"", url.display, "\"");
  std::string path_prefix = url.path;
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
    for (const std::string& host : OtherHosts(url_text, url, index->chart_urls)) {
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
  ASSIGN_OR_RETURN(SourceUrl url, OciUrl(url_text));
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
