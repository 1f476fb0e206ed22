// WriteTestFile: test helper that writes a small file (token, CA, service-account files).
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace credledger::kubebridge {

// Writes `content` to `file`, replacing it and creating missing parent folders. Returns
// `file`.
inline std::filesystem::path WriteTestFile(const std::filesystem::path& file,
                                           const std::string& content) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << content;
  return file;
}

}  // namespace credledger::kubebridge
