// ReadText and WriteText: a whole file's bytes in and out, for tests only. A file that cannot
// be read reads as "" (the test's own expectations then fail).
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace credledger::testing {

// The bytes of the file at `path`; "" when it cannot be read.
inline std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Replaces the file at `path` with `text`, creating it when missing.
inline void WriteText(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// WriteText after creating the missing folders of `path`.
inline void WriteTextCreatingFolders(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  WriteText(path, text);
}

}  // namespace credledger::testing
