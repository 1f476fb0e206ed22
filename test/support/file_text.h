// ReadText and WriteText: a whole file's bytes in and out, for tests only. A file that cannot
// be read reads as "" (the test's own expectations then fail). WriteTextChecked is for the
// support code, which reports a failed write as a status.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

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

// Replaces the file at `path` with `text`, creating it when missing.
// Errors: kInternal naming the file when it cannot be written.
inline absl::Status WriteTextChecked(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path.string()));
  return absl::OkStatus();
}

// WriteText after creating the missing folders of `path`.
inline void WriteTextCreatingFolders(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  WriteText(path, text);
}

}  // namespace credledger::testing
