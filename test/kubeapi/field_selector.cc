#include "test/kubeapi/field_selector.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace credledger::kubeapi {
namespace {

std::string FieldValue(const nlohmann::json& object, absl::string_view path) {
  const nlohmann::json* node = &object;
  for (absl::string_view part : absl::StrSplit(path, '.')) {
    if (!node->is_object()) return "";
    auto it = node->find(std::string(part));
    if (it == node->end()) return "";
    node = &*it;
  }
  if (node->is_string()) return node->get<std::string>();
  if (node->is_null()) return "";
  return node->dump();
}

}  // namespace

absl::StatusOr<FieldSelector> FieldSelector::Parse(absl::string_view text) {
  FieldSelector selector;
  if (absl::StripAsciiWhitespace(text).empty()) return selector;
  for (absl::string_view raw : absl::StrSplit(text, ',')) {
    absl::string_view term = absl::StripAsciiWhitespace(raw);
    Term t;
    size_t pos = term.find("!=");
    size_t op_len = 2;
    t.negated = pos != absl::string_view::npos;
    if (!t.negated) {
      pos = term.find("==");
      if (pos == absl::string_view::npos) {
        pos = term.find('=');
        op_len = 1;
      }
    }
    if (pos == absl::string_view::npos || pos == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid selector: '", text, "'; can't understand '", term, "'"));
    }
    t.path = std::string(absl::StripAsciiWhitespace(term.substr(0, pos)));
    t.value = std::string(absl::StripAsciiWhitespace(term.substr(pos + op_len)));
    selector.terms_.push_back(std::move(t));
  }
  return selector;
}

bool FieldSelector::Matches(const nlohmann::json& object) const {
  for (const Term& t : terms_) {
    bool equal = FieldValue(object, t.path) == t.value;
    if (equal == t.negated) return false;
  }
  return true;
}

std::optional<std::string> FieldSelector::RequiredName() const {
  for (const Term& t : terms_) {
    if (t.path == "metadata.name" && !t.negated) return t.value;
  }
  return std::nullopt;
}

}  // namespace credledger::kubeapi
