#include "cli/framework/flag_value_list.h"

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace credledger::cli {

bool AbslParseFlag(absl::string_view text, FlagValueList* list, std::string* error) {
  for (absl::string_view value : absl::StrSplit(text, ',')) {
    if (value.empty()) {
      *error = "empty value in the list";
      return false;
    }
    list->values.emplace_back(value);
  }
  return true;
}

std::string AbslUnparseFlag(const FlagValueList& list) { return absl::StrJoin(list.values, ","); }

}  // namespace credledger::cli
