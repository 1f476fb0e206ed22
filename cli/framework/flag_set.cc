#include "cli/framework/flag_set.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace credledger::cli {

void FlagSet::AddChoice(absl::string_view name, std::string* value,
                        std::vector<std::string> choices, absl::string_view help) {
  Flag flag;
  flag.name = std::string(name);
  flag.help = absl::StrCat(help, " (", absl::StrJoin(choices, "|"), ")");
  flag.default_text = *value;
  flag.parse = [value, choices = std::move(choices)](absl::string_view text, std::string* error) {
    if (std::find(choices.begin(), choices.end(), text) == choices.end()) {
      *error = absl::StrCat("must be one of ", absl::StrJoin(choices, ", "));
      return false;
    }
    *value = std::string(text);
    return true;
  };
  flags_.push_back(std::move(flag));
}

void FlagSet::AddNonEmpty(absl::string_view name, std::string* value, absl::string_view help) {
  Flag flag;
  flag.name = std::string(name);
  flag.help = std::string(help);
  flag.default_text = *value;
  flag.parse = [value](absl::string_view text, std::string* error) {
    if (text.empty()) {
      *error = "must not be empty";
      return false;
    }
    *value = std::string(text);
    return true;
  };
  flags_.push_back(std::move(flag));
}

void FlagSet::AddRepeated(absl::string_view name, std::vector<std::string>* values,
                          absl::string_view help) {
  Flag flag;
  flag.name = std::string(name);
  flag.help = absl::StrCat(help, " (repeatable)");
  flag.parse = [values](absl::string_view text, std::string*) {
    values->emplace_back(text);
    return true;
  };
  flags_.push_back(std::move(flag));
}

void FlagSet::AddAlias(char letter, absl::string_view name) {
  if (Flag* flag = Find(name)) flag->alias = letter;
}

FlagSet::Flag* FlagSet::FindAlias(char letter) {
  for (Flag& flag : flags_) {
    if (flag.alias == letter) return &flag;
  }
  return nullptr;
}

FlagSet::Flag* FlagSet::Find(absl::string_view name) {
  for (Flag& flag : flags_) {
    if (flag.name == name) return &flag;
  }
  return nullptr;
}

absl::StatusOr<std::vector<std::string>> FlagSet::Parse(const std::vector<std::string>& args,
                                                        bool* help) {
  *help = false;
  std::vector<std::string> positional;
  positional_before_terminator_ = args.size();
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    if (arg == "--") {
      positional_before_terminator_ = positional.size();
      positional.insert(positional.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                        args.end());
      break;
    }
    if (arg == "--help" || arg == "-h") {
      *help = true;
      return positional;
    }
    if (!absl::StartsWith(arg, "-") || arg == "-") {
      positional.push_back(arg);
      continue;
    }
    if (!absl::StartsWith(arg, "--")) {
      // `-x` or `-x=value` for a flag with that alias.
      const Flag* aliased = arg.size() == 2 || arg[2] == '=' ? FindAlias(arg[1]) : nullptr;
      if (aliased == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat("unknown flag ", arg, " (flags are spelled --name)"));
      }
      arg = absl::StrCat("--", aliased->name, arg.substr(2));
    }
    absl::string_view body = absl::string_view(arg).substr(2);
    const size_t equals = body.find('=');
    absl::string_view name = body.substr(0, equals);
    bool has_value = equals != absl::string_view::npos;
    std::string value = has_value ? std::string(body.substr(equals + 1)) : std::string();

    Flag* flag = Find(name);
    if (flag == nullptr && !has_value && absl::StartsWith(name, "no")) {
      Flag* negated = Find(name.substr(2));
      if (negated != nullptr && negated->is_bool) {
        flag = negated;
        has_value = true;
        value = "false";
      }
    }
    if (flag == nullptr) return absl::InvalidArgumentError(absl::StrCat("unknown flag --", name));
    if (!has_value) {
      if (flag->is_bool) {
        value = "true";
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return absl::InvalidArgumentError(absl::StrCat("flag --", name, " needs a value"));
      }
    }
    std::string error;
    if (!flag->parse(value, &error)) {
      if (error.empty() && !flag->expected.empty()) {
        error = absl::StrCat("expected ", flag->expected);
      }
      return absl::InvalidArgumentError(absl::StrCat("flag --", name, ": bad value \"", value, "\"",
                                                     error.empty() ? "" : ": ", error));
    }
    flag->given = true;
  }
  return positional;
}

bool FlagSet::Given(absl::string_view name) const {
  for (const Flag& f : flags_) {
    if (f.name == name) return f.given;
  }
  return false;
}

std::string FlagSet::Help() const {
  std::string out;
  for (const Flag& flag : flags_) {
    const std::string spelled =
        flag.is_bool ? absl::StrCat("--", flag.name) : absl::StrCat("--", flag.name, "=<value>");
    const std::string alias =
        flag.alias == '\0' ? std::string() : absl::StrCat("-", std::string(1, flag.alias), ", ");
    absl::StrAppend(&out, "  ", alias, spelled, "\n      ", flag.help);
    if (!flag.default_text.empty()) absl::StrAppend(&out, " (default: ", flag.default_text, ")");
    absl::StrAppend(&out, "\n");
  }
  return out;
}

}  // namespace credledger::cli
