#include "cli/framework/subcommands.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/quote_cut.h"
#include "common/terminal_text.h"
#include "google/protobuf/stubs/common.h"

namespace credledger::cli {

int ReportError(const absl::Status& status, std::ostream& err) {
  err << "error: " << absl::StatusCodeToString(status.code()) << ": "
      << common::TerminalSafe(status.message()) << "\n";
  return kExitFailure;
}

int ReportUsageError(absl::string_view message, std::ostream& err) {
  err << "error: " << common::TerminalSafe(message) << "\n";
  return kExitUsage;
}

void Dispatcher::Add(SubcommandSpec spec) { specs_.push_back(std::move(spec)); }

const SubcommandSpec* Dispatcher::Match(const std::vector<std::string>& args,
                                        size_t* words) const {
  const SubcommandSpec* best = nullptr;
  *words = 0;
  for (const SubcommandSpec& spec : specs_) {
    std::vector<std::string> path = absl::StrSplit(spec.path, ' ');
    if (path.size() > args.size() || path.size() <= *words) continue;
    if (std::equal(path.begin(), path.end(), args.begin())) {
      best = &spec;
      *words = path.size();
    }
  }
  return best;
}

namespace {

// Bytes of a refused argument shown in its error.
constexpr size_t kMaxShownArgBytes = 40;

bool IsFlag(const std::string& arg) { return absl::StartsWith(arg, "-") && arg != "-"; }

}  // namespace

const SubcommandSpec* Dispatcher::MatchAroundFlags(const std::vector<std::string>& args,
                                                   std::vector<std::string>* rest) const {
  const SubcommandSpec* best = nullptr;
  size_t best_words = 0;
  for (const SubcommandSpec& spec : specs_) {
    const std::vector<std::string> path = absl::StrSplit(spec.path, ' ');
    if (path.size() <= best_words) continue;
    std::vector<std::string> others;
    size_t matched = 0;
    bool stray_word = false;
    for (size_t i = 0; i < args.size(); ++i) {
      if (matched < path.size() && args[i] == path[matched]) {
        ++matched;
        continue;
      }
      // Before the command is complete, a word that is neither a flag nor right after one
      // (its value) is no part of this command.
      if (matched < path.size() && !IsFlag(args[i]) && (i == 0 || !IsFlag(args[i - 1]))) {
        stray_word = true;
        break;
      }
      others.push_back(args[i]);
    }
    if (matched == path.size() && !stray_word) {
      best = &spec;
      best_words = path.size();
      *rest = std::move(others);
    }
  }
  return best;
}

std::string Dispatcher::Usage() const { return GroupUsage(""); }

std::vector<std::string> Dispatcher::Paths() const {
  std::vector<std::string> paths;
  for (const SubcommandSpec& spec : specs_) paths.push_back(spec.path);
  return paths;
}

std::string Dispatcher::GroupUsage(const std::string& prefix) const {
  std::string out = absl::StrCat("usage: ", program_, prefix.empty() ? "" : " ", prefix,
                                 " <command> [flags] [arguments]\n\ncommands:\n");
  for (const SubcommandSpec& spec : specs_) {
    if (!prefix.empty() && !absl::StartsWith(spec.path, absl::StrCat(prefix, " "))) continue;
    absl::StrAppend(&out, absl::StrFormat("  %-18s %s\n", spec.path, spec.summary));
  }
  absl::StrAppend(&out, "\nrun '", program_, " <command> --help' for a command's flags\n");
  return out;
}

std::string Dispatcher::Help(const SubcommandSpec& spec) const {
  std::unique_ptr<Subcommand> command = spec.make();
  FlagSet flags;
  command->DefineFlags(flags);
  std::string out = absl::StrCat("usage: ", program_, " ", spec.path,
                                 flags.empty() ? "" : " [flags]",
                                 spec.args_usage.empty() ? "" : " ", spec.args_usage, "\n\n",
                                 spec.summary, "\n");
  if (!spec.description.empty()) absl::StrAppend(&out, "\n", spec.description);
  if (!flags.empty()) absl::StrAppend(&out, "\nflags:\n", flags.Help());
  return out;
}

int Dispatcher::Run(const std::vector<std::string>& args, std::ostream& out,
                    std::ostream& err) const {
  // Every string of a request must be UTF-8 (protobuf refuses to send anything else).
  for (size_t i = 0; i < args.size(); ++i) {
    if (!google::protobuf::internal::IsStructurallyValidUTF8(args[i])) {
      err << "error: argument " << i + 1 << " is not valid UTF-8: "
          << common::QuoteCut(args[i], kMaxShownArgBytes) << "\n";
      return kExitUsage;
    }
  }
  if (args.empty()) {
    err << "error: no command given\n\n" << Usage();
    return kExitUsage;
  }
  if (args.front() == "--help" || args.front() == "-h" || args.front() == "help") {
    out << Usage();
    return kExitOk;
  }
  size_t words = 0;
  const SubcommandSpec* spec = Match(args, &words);
  if (spec == nullptr) {
    // The words of a subcommand with flags among them: `cluster --server X list`.
    std::vector<std::string> rest;
    if (const SubcommandSpec* moved = MatchAroundFlags(args, &rest)) {
      err << "error: flags go after the subcommand: " << program_ << " " << moved->path
          << (rest.empty() ? "" : " ") << absl::StrJoin(rest, " ") << "\n";
      return kExitUsage;
    }
    // A group word ("target") without a known subcommand after it.
    const std::string group = args.front();
    const std::string group_usage = GroupUsage(group);
    const bool is_group = std::any_of(specs_.begin(), specs_.end(), [&](const SubcommandSpec& s) {
      return absl::StartsWith(s.path, absl::StrCat(group, " "));
    });
    if (is_group && (args.size() == 1 || args[1] == "--help" || args[1] == "-h")) {
      if (args.size() > 1) {
        out << group_usage;
        return kExitOk;
      }
      err << "error: '" << group << "' needs a command\n\n" << group_usage;
      return kExitUsage;
    }
    std::vector<std::string> named;
    for (const std::string& a : args) {
      if (absl::StartsWith(a, "-")) break;
      named.push_back(a);
      if (named.size() == 2) break;
    }
    if (named.empty()) {
      err << "error: the command comes first, then its flags: " << program_ << " <command> "
          << args[0] << " ...\n\n"
          << Usage();
      return kExitUsage;
    }
    err << "error: unknown command \"" << absl::StrJoin(named, " ") << "\"\n\n"
        << (is_group ? group_usage : Usage());
    return kExitUsage;
  }

  std::unique_ptr<Subcommand> command = spec->make();
  FlagSet flags;
  command->DefineFlags(flags);
  bool help = false;
  absl::StatusOr<std::vector<std::string>> positional =
      flags.Parse(std::vector<std::string>(args.begin() + static_cast<std::ptrdiff_t>(words),
                                           args.end()),
                  &help);
  if (!positional.ok()) {
    err << "error: " << program_ << " " << spec->path << ": " << positional.status().message()
        << "\n\n"
        << Help(*spec);
    return kExitUsage;
  }
  if (help) {
    out << Help(*spec);
    return kExitOk;
  }
  if (positional->size() < spec->min_args || positional->size() > spec->max_args) {
    err << "error: " << program_ << " " << spec->path << ": expected "
        << (spec->args_usage.empty() ? "no arguments" : spec->args_usage) << ", got "
        << positional->size() << " argument" << (positional->size() == 1 ? "" : "s") << "\n\n"
        << Help(*spec);
    return kExitUsage;
  }
  if (const absl::Status checked = command->CheckFlags(); !checked.ok()) {
    err << "error: " << checked.message() << "\n";
    return kExitUsage;
  }
  return command->Run(*positional, out, err);
}

}  // namespace credledger::cli
