#include "test/layering/append_check.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <regex>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace credledger::testing {
namespace {

namespace fs = std::filesystem;

// Folders whose code may reach the writer.
constexpr absl::string_view kWriterFolders[] = {"service/bus", "store"};

bool MayAppend(absl::string_view folder) {
  for (absl::string_view allowed : kWriterFolders) {
    if (folder == allowed || absl::StartsWith(folder, absl::StrCat(allowed, "/"))) return true;
  }
  return false;
}

// Blanks `text[from, to)` but its newlines.
void Blank(std::string& text, size_t from, size_t to) {
  for (size_t i = from; i < to && i < text.size(); ++i) {
    if (text[i] != '\n') text[i] = ' ';
  }
}

// The end of the quoted literal starting at `open` (the quote), past its closing quote.
size_t EndOfQuoted(const std::string& text, size_t open) {
  const char quote = text[open];
  size_t i = open + 1;
  while (i < text.size() && text[i] != quote && text[i] != '\n') i += text[i] == '\\' ? 2 : 1;
  return std::min(i + 1, text.size());
}

// The end of the raw string whose `R"` is at `open`, past its closing quote.
size_t EndOfRaw(const std::string& text, size_t open) {
  const size_t paren = text.find('(', open + 2);
  if (paren == std::string::npos) return text.size();
  const std::string close = absl::StrCat(")", text.substr(open + 2, paren - open - 2), "\"");
  const size_t end = text.find(close, paren);
  return end == std::string::npos ? text.size() : end + close.size();
}

bool IsIdentifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

std::string BlankCommentsAndLiterals(absl::string_view input) {
  std::string text(input);
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    size_t end = i;
    if (c == '/' && next == '/') {
      end = text.find('\n', i);
      if (end == std::string::npos) end = text.size();
    } else if (c == '/' && next == '*') {
      end = text.find("*/", i + 2);
      end = end == std::string::npos ? text.size() : end + 2;
    } else if (c == 'R' && next == '"' && (i == 0 || !IsIdentifierChar(text[i - 1]))) {
      end = EndOfRaw(text, i);
    } else if (c == '"' ||
               (c == '\'' && (i == 0 || !std::isxdigit(static_cast<unsigned char>(text[i - 1]))))) {
      end = EndOfQuoted(text, i);
    } else {
      ++i;
      continue;
    }
    Blank(text, i, end);
    i = end;
  }
  return text;
}

std::vector<std::string> FindAppendsIn(absl::string_view text) {
  static const std::regex kWriterName(
      R"(\b(WriteTransaction|AppendRequest|StreamAppend)\b|\bstore::Command\b)");
  static const std::regex kStoreCall(R"(\bstore\w*(\(\))?\s*(\.|->)\s*(Execute|Append)\s*\()");
  std::vector<std::string> found;
  std::istringstream lines(BlankCommentsAndLiterals(text));
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    std::smatch match;
    if (std::regex_search(line, match, kWriterName)) {
      found.push_back(absl::StrCat(number, ": names ", match.str(0),
                                   ", the store's writer interface; append through a command "
                                   "bus (service/bus/command_bus.h)"));
    }
    if (std::regex_search(line, match, kStoreCall)) {
      found.push_back(absl::StrCat(number, ": calls ", match.str(3),
                                   " on an event store; append through a command bus "
                                   "(service/bus/command_bus.h)"));
    }
  }
  return found;
}

std::vector<std::string> FindAppendViolations(const Layers& layers, const fs::path& source_root) {
  std::vector<std::string> violations;
  for (const auto& [library, folder] : layers.folder_of) {
    if (folder == "-" || absl::StartsWith(folder, "test") || MayAppend(folder)) continue;
    if (!fs::is_directory(source_root / folder)) continue;
    for (const fs::directory_entry& entry : fs::directory_iterator(source_root / folder)) {
      const fs::path& file = entry.path();
      if (file.extension() != ".h" && file.extension() != ".cc") continue;
      std::ifstream in(file);
      std::stringstream text;
      text << in.rdbuf();
      for (const std::string& use : FindAppendsIn(text.str())) {
        violations.push_back(absl::StrCat(folder, "/", file.filename().string(), ":", use));
      }
    }
  }
  return violations;
}

}  // namespace credledger::testing
