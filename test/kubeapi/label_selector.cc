#include "test/kubeapi/label_selector.h"

#include <cctype>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "test/kubeapi/names.h"

namespace credledger::kubeapi {
namespace {

bool IsSpecial(char c) {
  return std::isspace(static_cast<unsigned char>(c)) || c == ',' || c == '(' || c == ')' ||
         c == '=' || c == '!' || c == '<' || c == '>';
}

// A cursor over the selector text.
class Scanner {
 public:
  explicit Scanner(absl::string_view text) : text_(text) {}

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ >= text_.size();
  }
  // Consumes `token` (after whitespace) when it is next.
  bool Consume(absl::string_view token) {
    SkipSpace();
    if (text_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }
  // Reads an identifier (a run of non-special characters), possibly empty.
  std::string Identifier() {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() && !IsSpecial(text_[pos_])) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }
  // True when the next identifier equals `word` and is followed by a separator; consumes it.
  bool ConsumeWord(absl::string_view word) {
    SkipSpace();
    size_t save = pos_;
    if (Identifier() == word) return true;
    pos_ = save;
    return false;
  }

 private:
  absl::string_view text_;
  size_t pos_ = 0;
};

absl::Status Error(absl::string_view text, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("unable to parse requirement: \"", text, "\": ", why));
}

absl::StatusOr<std::vector<std::string>> ParseValueSet(Scanner& s, absl::string_view text) {
  if (!s.Consume("(")) return Error(text, "expected '(' after set operator");
  std::vector<std::string> values;
  while (true) {
    values.push_back(s.Identifier());
    if (s.Consume(")")) break;
    if (!s.Consume(",")) return Error(text, "expected ',' or ')' in value set");
  }
  return values;
}

absl::StatusOr<LabelSelector::Requirement> ParseRequirement(Scanner& s, absl::string_view text) {
  using Op = LabelSelector::Op;
  LabelSelector::Requirement r;
  if (s.Consume("!")) {
    r.key = s.Identifier();
    r.op = Op::kDoesNotExist;
  } else {
    r.key = s.Identifier();
    if (s.Consume("==") || s.Consume("=")) {
      r.op = Op::kEquals;
      r.values.push_back(s.Identifier());
    } else if (s.Consume("!=")) {
      r.op = Op::kNotEquals;
      r.values.push_back(s.Identifier());
    } else if (s.Consume(">")) {
      r.op = Op::kGreater;
      r.values.push_back(s.Identifier());
    } else if (s.Consume("<")) {
      r.op = Op::kLess;
      r.values.push_back(s.Identifier());
    } else if (s.ConsumeWord("in")) {
      r.op = Op::kIn;
      auto values = ParseValueSet(s, text);
      if (!values.ok()) return values.status();
      r.values = *std::move(values);
    } else if (s.ConsumeWord("notin")) {
      r.op = Op::kNotIn;
      auto values = ParseValueSet(s, text);
      if (!values.ok()) return values.status();
      r.values = *std::move(values);
    } else {
      r.op = Op::kExists;
    }
  }
  if (!IsValidLabelKey(r.key)) return Error(text, absl::StrCat("invalid label key \"", r.key, "\""));
  for (const std::string& v : r.values) {
    int64_t unused = 0;
    if ((r.op == Op::kGreater || r.op == Op::kLess) && !absl::SimpleAtoi(v, &unused)) {
      return Error(text, absl::StrCat("value \"", v, "\" is not an integer"));
    }
    if (!IsValidLabelValue(v)) {
      return Error(text, absl::StrCat("invalid label value \"", v, "\""));
    }
  }
  return r;
}

}  // namespace

absl::StatusOr<LabelSelector> LabelSelector::Parse(absl::string_view text) {
  LabelSelector selector;
  Scanner s(text);
  if (s.AtEnd()) return selector;
  while (true) {
    auto r = ParseRequirement(s, text);
    if (!r.ok()) return r.status();
    selector.requirements_.push_back(*std::move(r));
    if (s.AtEnd()) break;
    if (!s.Consume(",")) return Error(text, "expected ','");
  }
  return selector;
}

bool LabelSelector::Matches(const nlohmann::json& labels) const {
  for (const Requirement& r : requirements_) {
    bool has = labels.is_object() && labels.contains(r.key) && labels[r.key].is_string();
    std::string value = has ? labels[r.key].get<std::string>() : "";
    bool in_set = false;
    for (const std::string& v : r.values) in_set = in_set || (has && v == value);
    bool ok = false;
    switch (r.op) {
      case Op::kEquals:
      case Op::kIn: ok = in_set; break;
      case Op::kNotEquals:
      case Op::kNotIn: ok = !in_set; break;
      case Op::kExists: ok = has; break;
      case Op::kDoesNotExist: ok = !has; break;
      case Op::kGreater:
      case Op::kLess: {
        int64_t have = 0;
        int64_t want = 0;
        if (!has || r.values.size() != 1 || !absl::SimpleAtoi(value, &have) ||
            !absl::SimpleAtoi(r.values[0], &want)) {
          return false;
        }
        ok = r.op == Op::kGreater ? have > want : have < want;
        break;
      }
    }
    if (!ok) return false;
  }
  return true;
}

bool IsValidLabelKey(absl::string_view key) {
  size_t slash = key.find('/');
  if (slash == absl::string_view::npos) return IsQualifiedNamePart(key);
  return IsDnsSubdomain(key.substr(0, slash)) && IsQualifiedNamePart(key.substr(slash + 1));
}

bool IsValidLabelValue(absl::string_view value) {
  return value.empty() || IsQualifiedNamePart(value);
}

}  // namespace credledger::kubeapi
