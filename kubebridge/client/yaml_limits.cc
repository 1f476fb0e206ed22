#include "kubebridge/client/yaml_limits.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace credledger::kubebridge {
namespace {

// Scanner state carried from line to line.
struct ScanState {
  std::vector<size_t> indents;  // columns of the enclosing block levels
  int flow_depth = 0;           // open "[" / "{" outside quotes
  char quote = 0;               // '\'' or '"' while inside a quoted scalar, else 0
  // Indentation of the line that introduced a block scalar ("|" or ">"), or -1.
  long block_scalar_parent_indent = -1;
};

bool IsSpace(char c) { return c == ' ' || c == '\t'; }

// True when an opening bracket or quote at `i` starts a node rather than sitting inside a
// plain scalar: it follows the line start, a blank or a flow/mapping indicator.
bool StartsNode(absl::string_view line, size_t i, int flow_depth) {
  if (i == 0) return true;
  char prev = line[i - 1];
  if (IsSpace(prev) || prev == ',' || prev == '[' || prev == '{') return true;
  return flow_depth > 0 && prev == ':';
}

// True when `content` (a line without its comment) ends with a block scalar header such as
// "|", "|-", ">+2" after a mapping value or sequence entry.
bool EndsWithBlockScalarHeader(absl::string_view content) {
  while (!content.empty() && IsSpace(content.back())) content.remove_suffix(1);
  size_t i = content.size();
  while (i > 0 && (content[i - 1] == '-' || content[i - 1] == '+' ||
                   (content[i - 1] >= '0' && content[i - 1] <= '9'))) {
    --i;
  }
  if (i == 0 || (content[i - 1] != '|' && content[i - 1] != '>')) return false;
  --i;
  return i == 0 || IsSpace(content[i - 1]);
}

// Scans the quoted and flow parts of `line` from `start`, updating state; returns the end
// of the line's content (the start of a comment, or the line's size) and the deepest flow
// depth reached.
size_t ScanInline(absl::string_view line, size_t start, ScanState& state, int* max_flow) {
  *max_flow = state.flow_depth;
  for (size_t i = start; i < line.size(); ++i) {
    char c = line[i];
    if (state.quote != 0) {
      if (state.quote == '"' && c == '\\') {
        ++i;  // skip the escaped character
      } else if (c == state.quote) {
        if (c == '\'' && i + 1 < line.size() && line[i + 1] == '\'') {
          ++i;  // '' is an escaped single quote
        } else {
          state.quote = 0;
        }
      }
      continue;
    }
    if (c == '#' && (i == 0 || IsSpace(line[i - 1]))) return i;
    if ((c == '"' || c == '\'') && StartsNode(line, i, state.flow_depth)) {
      state.quote = c;
    } else if ((c == '[' || c == '{') && StartsNode(line, i, state.flow_depth)) {
      ++state.flow_depth;
      if (state.flow_depth > *max_flow) *max_flow = state.flow_depth;
    } else if ((c == ']' || c == '}') && state.flow_depth > 0) {
      --state.flow_depth;
    }
  }
  return line.size();
}

// The estimated depth of one line (see the header); updates `state`.
int LineDepth(absl::string_view line, ScanState& state) {
  size_t indent = 0;
  while (indent < line.size() && IsSpace(line[indent])) ++indent;
  bool blank = indent == line.size() || line[indent] == '#';
  if (state.block_scalar_parent_indent >= 0) {
    if (blank || static_cast<long>(indent) > state.block_scalar_parent_indent) return 0;
    state.block_scalar_parent_indent = -1;
  }
  if (state.quote != 0 || state.flow_depth > 0) {
    int max_flow = 0;
    ScanInline(line, 0, state, &max_flow);
    return static_cast<int>(state.indents.size()) + max_flow;
  }
  if (blank) return 0;
  while (!state.indents.empty() && state.indents.back() > indent) state.indents.pop_back();
  if (state.indents.empty() || state.indents.back() < indent) state.indents.push_back(indent);
  // Compact entries: "- - x" or "? x" open one level each on this line.
  size_t i = indent;
  int compact = 0;
  while (i + 1 < line.size() && (line[i] == '-' || line[i] == '?') && IsSpace(line[i + 1])) {
    ++compact;
    i += 2;
    while (i < line.size() && IsSpace(line[i])) ++i;
  }
  int max_flow = 0;
  size_t content_end = ScanInline(line, i, state, &max_flow);
  if (state.quote == 0 && state.flow_depth == 0 &&
      EndsWithBlockScalarHeader(line.substr(0, content_end))) {
    state.block_scalar_parent_indent = static_cast<long>(indent);
  }
  return static_cast<int>(state.indents.size()) + compact + max_flow;
}

}  // namespace

absl::Status CheckYamlLimits(absl::string_view text, size_t max_bytes, int max_depth) {
  if (text.size() > max_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("larger than the limit of ", max_bytes, " bytes"));
  }
  ScanState state;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (LineDepth(line, state) > max_depth) {
      return absl::InvalidArgumentError(
          absl::StrCat("nested deeper than ", max_depth, " levels (line ", line_number, ")"));
    }
  }
  return absl::OkStatus();
}

}  // namespace credledger::kubebridge
