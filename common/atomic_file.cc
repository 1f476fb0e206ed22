#include "common/atomic_file.h"

#include <fstream>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace credledger::common {

absl::Status WriteFileAtomically(const std::filesystem::path& path, absl::string_view text) {
  const std::filesystem::path temporary = path.string() + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
      return absl::InternalError(absl::StrCat("cannot write \"", temporary.string(), "\""));
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    return absl::InternalError(
        absl::StrCat("cannot rename to \"", path.string(), "\": ", error.message()));
  }
  return absl::OkStatus();
}

}  // namespace credledger::common
