// The include check: every #include in a product library names a header of that library, of
// a library on its own link line, or of a third-party library on that line
// (docs/architecture.md, "Layers").
//
// Input: the layer file CMake writes at configure time (credledger_write_layers in
// cmake/CredledgerHelpers.cmake) and the source tree. A file belongs to the library whose
// folder is the file's own folder; files of folders without a library are not checked.
// Headers of the standard library, POSIX and abseil are allowed everywhere.
//
// Thread-safety: stateless functions.
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace credledger::testing {

// The libraries and their link lines, as the layer file states them.
struct Layers {
  // Library name -> its folder relative to the source root ("-" for generated code).
  std::map<std::string, std::string> folder_of;
  // Library name -> the libraries and imported targets named on its link line.
  std::map<std::string, std::set<std::string>> links_of;
};

// Parses the layer file's text ("library <name> <folder>" and "links <name> <target>"
// lines). Errors: kInvalidArgument naming the line that has another shape.
absl::StatusOr<Layers> ParseLayers(absl::string_view text);

// The layers of the layer file at `path` (ParseLayers). Errors: kNotFound when it cannot be
// read or is empty; ParseLayers's.
absl::StatusOr<Layers> ReadLayers(const std::filesystem::path& path);

// The library or imported target that provides `include` (the text between the quotes or
// angle brackets) as seen from `source_root`: the library of the header's folder for a
// header of the tree, a generated protobuf library for credledger/v1/*.pb.h, an imported
// target for a third-party header; "" when every library may include it. `include` of a
// tree header in a folder without a library yields "?<folder>".
std::string ProviderOf(const Layers& layers, const std::filesystem::path& source_root,
                       absl::string_view include);

// Checks every .h and .cc file of every library folder under `source_root` (folders under
// test/ excepted). Returns one line per include that crosses a forbidden arrow:
// "<file>: includes <header>, which <provider> provides; <library> does not link it".
std::vector<std::string> FindLayerViolations(const Layers& layers,
                                             const std::filesystem::path& source_root);

}  // namespace credledger::testing
