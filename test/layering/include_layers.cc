#include "test/layering/include_layers.h"

#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace credledger::testing {
namespace {

namespace fs = std::filesystem;

// Third-party headers by the start of their include path, and the imported target that
// provides each.
constexpr std::pair<const char*, const char*> kThirdParty[] = {
    {"grpcpp/", "gRPC::grpc++"},
    {"grpc/", "gRPC::grpc++"},
    {"curl/", "CURL::libcurl"},
    {"sqlite3.h", "SQLite::SQLite3"},
    {"libpq-fe.h", "PostgreSQL::PostgreSQL"},
    {"openssl/", "OpenSSL::Crypto"},
    {"httplib.h", "PkgConfig::HTTPLIB"},
    {"git2", "PkgConfig::LIBGIT2"},
    {"yaml-cpp/", "yaml-cpp"},
    {"nlohmann/", "nlohmann_json::nlohmann_json"},
    {"google/protobuf/", "protobuf::libprotobuf"},
    {"gtest/", "GTest::gtest"},
    {"gmock/", "GTest::gmock"},
    {"benchmark/", "benchmark::benchmark"},
};

// Other names on a link line that give the same headers as `provider`.
std::set<std::string> SatisfiedBy(const std::string& provider) {
  if (provider == "OpenSSL::Crypto") return {provider, "OpenSSL::SSL"};
  if (provider == "gRPC::grpc++") return {provider, "gRPC::grpc++_reflection"};
  return {provider};
}

// The names a library may include from: itself, its link line, and what the generated
// protobuf libraries on that line link in turn (naming a generated library gives its
// runtime, as its headers include it).
std::set<std::string> Reachable(const Layers& layers, const std::string& library) {
  std::set<std::string> reachable = {library};
  std::vector<std::string> pending = {library};
  while (!pending.empty()) {
    const std::string current = std::move(pending.back());
    pending.pop_back();
    const auto links = layers.links_of.find(current);
    if (links == layers.links_of.end()) continue;
    for (const std::string& link : links->second) {
      if (!reachable.insert(link).second) continue;
      const auto folder = layers.folder_of.find(link);
      if (folder != layers.folder_of.end() && folder->second == "-") pending.push_back(link);
    }
  }
  return reachable;
}

// The includes of `file`: the paths between quotes or angle brackets of #include lines.
std::vector<std::string> IncludesOf(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> includes;
  std::string line;
  while (std::getline(in, line)) {
    if (!absl::StartsWith(line, "#include ")) continue;
    const size_t open = line.find_first_of("\"<");
    const size_t close = line.find_first_of("\">", open + 1);
    if (open == std::string::npos || close == std::string::npos) continue;
    includes.push_back(line.substr(open + 1, close - open - 1));
  }
  return includes;
}

}  // namespace

absl::StatusOr<Layers> ParseLayers(absl::string_view text) {
  Layers layers;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    std::vector<std::string> words = absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (words.size() == 3 && words[0] == "library") {
      layers.folder_of[words[1]] = words[2];
    } else if (words.size() == 3 && words[0] == "links") {
      layers.links_of[words[1]].insert(words[2]);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("layer file: line \"", line,
                       "\" is neither \"library <name> <folder>\" nor \"links <name> <target>\""));
    }
  }
  return layers;
}

std::string ProviderOf(const Layers& layers, const fs::path& source_root,
                       absl::string_view include) {
  if (absl::StartsWith(include, "credledger/v1/")) {
    if (absl::EndsWith(include, ".grpc.pb.h")) return "credledger_api_grpc";
    if (include == "credledger/v1/api.pb.h") return "credledger_api_proto";
    return "credledger_proto";
  }
  const fs::path in_tree = source_root / std::string(include);
  if (include.find('/') != absl::string_view::npos && fs::exists(in_tree)) {
    const std::string folder = fs::path(std::string(include)).parent_path().string();
    for (const auto& [library, library_folder] : layers.folder_of) {
      if (library_folder == folder) return library;
    }
    return absl::StrCat("?", folder);
  }
  for (const auto& [prefix, target] : kThirdParty) {
    if (absl::StartsWith(include, prefix)) return target;
  }
  return "";
}

absl::StatusOr<Layers> ReadLayers(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  if (text.str().empty()) {
    return absl::NotFoundError(absl::StrCat("layer file ", path.string(), ": cannot read it"));
  }
  return ParseLayers(text.str());
}

std::vector<std::string> FindLayerViolations(const Layers& layers,
                                             const fs::path& source_root) {
  std::vector<std::string> violations;
  for (const auto& [library, folder] : layers.folder_of) {
    if (folder == "-" || absl::StartsWith(folder, "test")) continue;
    if (!fs::is_directory(source_root / folder)) continue;
    const std::set<std::string> reachable = Reachable(layers, library);
    for (const fs::directory_entry& entry : fs::directory_iterator(source_root / folder)) {
      const fs::path& file = entry.path();
      if (file.extension() != ".h" && file.extension() != ".cc") continue;
      for (const std::string& include : IncludesOf(file)) {
        const std::string provider = ProviderOf(layers, source_root, include);
        if (provider.empty()) continue;
        bool allowed = false;
        for (const std::string& name : SatisfiedBy(provider)) allowed |= reachable.count(name) > 0;
        if (allowed) continue;
        violations.push_back(absl::StrCat(folder, "/", file.filename().string(), ": includes ",
                                          include, ", which ", provider, " provides; ", library,
                                          " does not link it"));
      }
    }
  }
  return violations;
}

}  // namespace credledger::testing
