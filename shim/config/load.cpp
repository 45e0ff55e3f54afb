#include "config/load.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "alloc/allocators.hpp"
#include "alloc/options.hpp"
#include "alloc/registry.hpp"
#include "config/config_file.hpp"
#include "config/keys.hpp"
#include "config/log_path.hpp"
#include "util/fs.hpp"
#include "util/owned_file.hpp"
#include "util/strings.hpp"
#include "util/toml_parse.hpp"

namespace config {

bool Loaded::has_errors() const {
  return std::any_of(problems.begin(), problems.end(), [](const Problem& p) { return p.error; });
}

bool Loaded::is_untrusted(const std::string& file) const {
  return std::find(not_trusted.begin(), not_trusted.end(), file) != not_trusted.end();
}

const std::vector<std::string>& layer_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k{"tool", "profile"};
    for (const auto& spec : key_table()) k.emplace_back(spec.name);
    return k;
  }();
  return keys;
}

namespace {
// Whole-line comments blanked out (the newline kept, so lines and columns stay true), and
// trailing ones on lines without quotes: the shipped profiles are mostly comments explaining
// their choices, and toml++ decodes every character of them, a third of a run's instructions.
// Only when no multi-line string could make a '#' line part of a value.
std::string without_comment_lines(const std::string& text) {
  if (text.find("\"\"\"") != std::string::npos || text.find("'''") != std::string::npos) return text;
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    size_t first = text.find_first_not_of(" \t", pos);
    if (first < end && text[first] == '#') {
      // keep nothing of the comment
    } else {
      // A trailing comment on a line without quotes cannot be inside a string: cut it too.
      std::string_view line(text.data() + pos, end - pos);
      size_t hash = line.find('#');
      bool quoted = line.find_first_of("\"'") != std::string_view::npos;
      out.append(line.substr(0, hash != std::string_view::npos && !quoted ? hash : line.size()));
    }
    if (end < text.size()) out += '\n';
    pos = end + 1;
  }
  return out;
}

struct ParsedFile {
  std::string content;
  toml::table table;
};

// The text as a TOML table, or the problem that stops it (and a word for the file's note).
std::optional<toml::table> parse_text(const std::string& path, const std::string& content, Problem& problem,
                                      std::string& note) {
  if (content.find('\0') != std::string::npos) {
    note = "contains a NUL byte";
    problem = {path, 0, 0, "contains a NUL byte: not a TOML file", true};
    return std::nullopt;
  }
  // toml++ nests values at most 256 deep itself: keys and table names get the same limit.
  // Comments nest nothing: the text without them is checked as it is parsed.
  auto parsed = util::parse_toml(without_comment_lines(content), path, 256);
  if (parsed) return std::move(*parsed);
  const auto& p = parsed.failure();
  if (p.kind == util::TomlProblem::Kind::too_deep) {
    note = "nested too deeply";
    problem = {path, p.line, 0, p.what + ": nested too deeply", true};
  } else {
    note = "TOML syntax error";
    problem = {path, p.line, p.column, "TOML syntax error: " + p.what, true};
  }
  return std::nullopt;
}

std::optional<ParsedFile> parse(const std::string& path, const std::optional<std::string>& content,
                                std::vector<Problem>& problems, std::string& note) {
  if (!content) {
    note = "unreadable or larger than 1 MiB";
    problems.push_back({path, 0, 0, "cannot read this config file (or it is larger than 1 MiB)", true});
    return std::nullopt;
  }
  Problem problem;
  auto table = parse_text(path, *content, problem, note);
  if (!table) {
    problems.push_back(std::move(problem));
    return std::nullopt;
  }
  return ParsedFile{*content, std::move(*table)};
}

// The learned layer: between the user's file and project files, only with adopt on. Which
// choice is this tool's on this CPU model, and whether the binary it was learned on is unchanged,
// the caller's reader decides (learned.toml's format is learn/'s).
void apply_learned(const LoadRequest& req, Loaded& out) {
  auto read = req.read_learned();
  if (!read) {
    out.problems.push_back({req.learned_file, 0, 0, read.error(), false});
    return;
  }
  if (!*read) return;  // nothing learned for this tool on this CPU model
  LearnedLayer layer;
  layer.choice = std::move(**read);
  layer.file = req.learned_file;
  if (!layer.choice.unusable.empty()) {
    layer.note = layer.choice.unusable;
    out.learned = std::move(layer);
    return;
  }
  layer.family = alloc::options_family_of(layer.choice.allocator);
  Origin o{req.learned_file, layer.choice.line};
  auto& settings = out.settings;
  layer.allocator_before = settings.allocator;
  layer.options_before = settings.options[layer.family];
  settings.allocator.set(layer.choice.allocator, o);
  for (const auto& [name, value] : layer.choice.options)
    settings.options[layer.family][util::to_lower(name)].set(alloc::option_from_text(value), o);
  layer.applied = true;
  out.learned = std::move(layer);
}

// Every named profile a run could select, sorted: "system" (glibc's malloc), the shipped and the
// user's profile files, and `sections` (the [profile.X] of the files read). Lists directories:
// only for a name that is not there, to say what would be right.
// Where named profiles are files (NAME.toml): edashim's shipped ones, then the user's own.
std::vector<std::string> profile_dirs(const LoadRequest& req) { return {req.shipped_dir + "/named", req.user_profiles_dir}; }

std::vector<std::string> profile_names(const LoadRequest& req, std::vector<std::string> sections) {
  std::vector<std::string> known = std::move(sections);
  known.push_back("system");
  for (const auto& dir : profile_dirs(req))
    for (const auto& [name, path] : util::toml_files_in(dir)) known.push_back(name);
  std::sort(known.begin(), known.end());
  known.erase(std::unique(known.begin(), known.end()), known.end());
  return known;
}

// The named profiles explore_profiles mentions, checked by name first (a stat each, on every
// run of a user who explores).
void check_profile_mentions(const std::vector<ProfileMention>& mentions, const LoadRequest& req,
                            std::vector<std::string> known, std::vector<Problem>& problems) {
  const std::vector<std::string> dirs = profile_dirs(req);
  auto exists = [&](const std::string& name) {
    if (name == "system" || std::find(known.begin(), known.end(), name) != known.end()) return true;
    return std::any_of(dirs.begin(), dirs.end(), [&](const std::string& d) { return util::exists(d + "/" + name + ".toml"); });
  };
  bool listed = false;
  for (const auto& m : mentions) {
    if (exists(m.name)) continue;
    if (!listed) {
      listed = true;
      known = profile_names(req, std::move(known));
    }
    auto near = util::nearest(m.name, known);
    problems.push_back({m.file, m.line, m.column,
                        "explore_profiles: no profile named '" + m.name + "'" +
                            (near ? "; did you mean '" + *near + "'?" : "") + " (known: " + util::join(known, ", ") + ")",
                        true});
  }
}

// A run that explores loads the configuration a second time, with the candidate's profile
// (pipeline/explore.cpp): the files read again are parsed once per process, keyed by their
// path and exact bytes (bench/overhead: the second load cost ~0.4 ms, mostly toml++ parsing).
std::shared_ptr<const ParsedFile> parse_once(const std::string& path, const std::optional<std::string>& content,
                                             std::vector<Problem>& problems, std::string& note) {
  static std::map<std::string, std::shared_ptr<const ParsedFile>> parsed;
  std::string key = content ? path + '\0' + *content : "";
  if (auto it = parsed.find(key); content && it != parsed.end()) return it->second;
  auto p = parse(path, content, problems, note);
  if (!p) return nullptr;
  auto shared = std::make_shared<const ParsedFile>(std::move(*p));
  parsed.emplace(std::move(key), shared);
  return shared;
}

// An untrusted project file's mistakes are its own: each ignores what it is about (said as a
// warning), and the rest of the configuration applies. One bad value in a cloned repository
// must not turn off the user's [env] and run log. The user's and trusted files' stay errors.
void settle(const FileContext& f, std::vector<Problem>& found, std::vector<Problem>& out) {
  for (auto& p : found) {
    if (p.error && !f.trusted) {
      p.error = false;
      p.message += kUntrustedMistake;
    }
    out.push_back(std::move(p));
  }
  found.clear();
}

// A parsed file's top level and [tool.<tool>] section, and its [profile.X] sections: the one
// selected is kept for later (a named profile ranks above every file); one an untrusted file
// may not define is ignored.
void apply_file(FileContext& f, const toml::table& root, const LoadRequest& req, Settings& s,
                std::vector<std::string>& section_names, std::vector<std::pair<FileContext, toml::table>>& selected) {
  apply_table(f, root, s, false);
  apply_tool_section(f, root, req.tool, s);
  auto* profiles = root.get("profile");
  if (!profiles) return;
  auto* pt = profiles->as_table();
  if (!pt) return report(f, *profiles, "'profile' must hold sections such as [profile.fast]");
  for (const auto& [key, section] : *pt) {
    std::string name(key.str());
    if (auto why = profile_refusal(f, name); !why.empty()) {
      ignore(f, "[profile." + name + "]", why, section);
      continue;
    }
    section_names.push_back(name);
    if (auto* st = section.as_table(); st && name == req.chosen.profile) selected.emplace_back(f, *st);
    else if (!section.as_table()) report(f, section, "[profile." + name + "] must be a table");
  }
}

// The user chose never to use this project file as it is now (trust --ignore): it is listed,
// skipped, and nothing of it is said on a run.
bool ignored_by_choice(const LoadRequest& req, const std::string& path, const std::string& content, ConsideredFile& cf,
                       Loaded& out, std::string& store_problem) {
  if (!req.ignore || !req.ignore->holds(trust_key(path), content, &store_problem)) return false;
  cf.note = "ignored: you chose not to use it (edashim trust --ignore); undo: edashim untrust " + util::shell_quote(path);
  out.ignored_by_choice.push_back(path);
  out.files.push_back(cf);
  return true;
}

// A file with an error (its problems from `first` on) is not applied at all: the run is plain,
// and explain must not show its other settings as if they were. Back to what was `below` it.
bool roll_back_if_broken(Loaded& out, size_t first, Settings& below, ConsideredFile& cf,
                         std::vector<std::pair<FileContext, toml::table>>& profile_sections) {
  if (std::none_of(out.problems.begin() + long(first), out.problems.end(), [](const Problem& p) { return p.error; }))
    return false;
  out.settings = std::move(below);
  std::erase_if(profile_sections, [&](const auto& section) { return section.first.path == cf.path; });
  cf.note = "it has errors (see problems); until they are fixed, runs are plain";
  out.files.push_back(cf);
  return true;
}

// The selected [profile.X] section of file `f`, above every file. A section with an error is
// not applied at all, as a file with one is not (roll_back_if_broken).
void apply_profile_section(FileContext& f, const toml::table& table, const LoadRequest& req, Loaded& out) {
  size_t before = f.ignored.size();
  std::vector<Problem> found;
  f.problems = &found;
  Settings below = out.settings;
  apply_table(f, table, out.settings, false);
  apply_tool_section(f, table, req.tool, out.settings);
  size_t first = out.problems.size();
  settle(f, found, out.problems);
  if (std::any_of(out.problems.begin() + long(first), out.problems.end(), [](const Problem& p) { return p.error; }))
    out.settings = std::move(below);
  if (f.ignored.size() == before) return;
  // The section's file was listed when it was read; what its profile section set is
  // ignored too, and said so.
  if (!out.ignored.count(f.path)) out.untrusted_files.push_back(f.path);
  auto& list = out.ignored[f.path];
  list.insert(list.end(), f.ignored.begin() + long(before), f.ignored.end());
}

// The allocator asked for outside the files (--allocator, EDASHIM_ALLOCATOR): above every file.
void apply_chosen_allocator(const LoadRequest& req, Loaded& out) {
  if (req.chosen.allocator.empty()) return;
  auto names = alloc::known_names();
  bool known = std::find(names.begin(), names.end(), req.chosen.allocator) != names.end();
  if (known || req.chosen.allocator[0] == '/') {
    out.settings.allocator.set(req.chosen.allocator, {req.chosen.allocator_origin});
    return;
  }
  auto near = util::nearest(req.chosen.allocator, names);
  out.problems.push_back({req.chosen.allocator_origin, 0, 0,
                          "unknown allocator '" + req.chosen.allocator + "'" + (near ? "; did you mean '" + *near + "'?" : "") +
                              " (known: " + util::join(names, ", ") + ", or an absolute library path)",
                          true});
}

}  // namespace

void drop_learned(Loaded& loaded, const std::string& why) {
  if (!loaded.learned || !loaded.learned->applied) return;
  auto& layer = *loaded.learned;
  auto& s = loaded.settings;
  // Only what still comes from the learned file: a project file above it keeps its say.
  if (s.allocator.origin.file == layer.file) s.allocator = layer.allocator_before;
  auto& opts = s.options[layer.family];
  for (auto it = opts.begin(); it != opts.end();) {
    if (it->second.origin.file != layer.file) {
      ++it;
      continue;
    }
    auto before = layer.options_before.find(it->first);
    if (before != layer.options_before.end()) {
      it->second = before->second;
      ++it;
    } else {
      it = opts.erase(it);
    }
  }
  layer.applied = false;
  layer.note = "ignored: " + why;
}

std::vector<std::string> project_files(const std::string& cwd, std::string* stopped_because) {
  std::vector<std::string> dirs;
  if (cwd.empty() || cwd[0] != '/') return {};
  const uid_t me = ::getuid();
  std::string dir = cwd;
  dev_t start_dev = 0;
  while (true) {
    struct stat st;
    if (::stat(dir.c_str(), &st) != 0) break;
    if (dirs.empty()) start_dev = st.st_dev;
    if (st.st_dev != start_dev) {
      if (stopped_because) *stopped_because = "stopped at " + dir + ": another filesystem";
      break;
    }
    if (st.st_uid != me && st.st_uid != 0) {
      if (stopped_because) *stopped_because = "stopped at " + dir + ": owned by another user";
      break;
    }
    dirs.push_back(dir);
    if (dir == "/") break;
    dir = util::dirname(dir);
  }
  std::vector<std::string> files;
  for (auto it = dirs.rbegin(); it != dirs.rend(); ++it) {
    std::string f = (*it == "/" ? "" : *it) + "/.edashim.toml";
    if (util::exists(f)) files.push_back(f);
  }
  return files;
}

bool foreign_in_foreign_dir(const struct stat& file, const struct stat& dir, uid_t me) {
  if (file.st_uid == me || file.st_uid == 0) return false;
  bool shared_dir = (dir.st_mode & S_ISVTX) && (dir.st_mode & S_IWOTH);
  return dir.st_uid != me || shared_dir;
}

std::string foreign_file_note(const std::string& path, uid_t me) {
  struct stat file, dir;
  std::string parent = util::dirname(path);
  if (::lstat(path.c_str(), &file) != 0 || ::stat(parent.c_str(), &dir) != 0) return "";
  if (!foreign_in_foreign_dir(file, dir, me)) return "";
  return "ignored: owned by " + util::user_name(file.st_uid) + " in " + util::shell_quote(parent) +
         ", a directory that is not yours: another user's file is not yours to use, and runs say nothing of it";
}

namespace {

bool any_error(const std::vector<Problem>& problems) {
  return std::any_of(problems.begin(), problems.end(), [](const Problem& p) { return p.error; });
}

// One load, file by file, lowest priority first: the request, what is found so far, and what the
// steps over the files share.
class Loader {
 public:
  explicit Loader(const LoadRequest& req) : req_(req) {}
  Loaded load();

 private:
  void consider(const std::string& path, FileKind kind, bool must_exist);
  bool readable(ConfigFile& file, ConsideredFile& cf);
  void apply_read_file(const ConfigFile& file, ConsideredFile& cf);
  void record_applied(const FileContext& f, const toml::table& root, ConsideredFile& cf);
  void apply_chosen_profile();
  std::string profile_owner(const std::string& name) const;
  bool trusted_file(const std::string& path, const std::string& content) {
    return req_.trust && req_.trust->is_trusted(trust_key(path), content, &trust_problem_);
  }

  const LoadRequest& req_;
  Loaded out_;
  std::string trust_problem_;   // the trust store cannot be used: said once, nothing is trusted
  std::string ignore_problem_;  // the store of ignored files cannot be used: said once, nothing is ignored
  // Named-profile sections found in config files, applied after all files, in file order.
  std::vector<std::pair<FileContext, toml::table>> profile_sections_;
  std::vector<ProfileMention> mentions_;    // explore_profiles entries, checked at the end
  std::vector<std::string> section_names_;  // every [profile.X] of every file
  std::vector<std::string> own_sections_;   // the [profile.X] of the shipped, system and user files
};

Loaded Loader::load() {
  consider(req_.shipped_dir + "/defaults/all.toml", FileKind::shipped, false);
  if (!req_.tool.empty()) consider(req_.shipped_dir + "/defaults/" + req_.tool + ".toml", FileKind::shipped, false);
  consider(req_.system_file, FileKind::system, false);
  consider(req_.user_file, FileKind::user, false);
  // Learned choices rank above the user's and the system's files (they are the user's, learned)
  // and below project files. adopt is read from the files so far: a project cannot turn it on.
  if (out_.settings.adopt.value && req_.read_learned && !req_.tool.empty()) apply_learned(req_, out_);
  for (const auto& f : project_files(req_.cwd)) consider(f, FileKind::project, false);
  if (!trust_problem_.empty()) out_.problems.push_back({req_.trust->path(), 0, 0, trust_problem_, false});
  if (!ignore_problem_.empty()) out_.problems.push_back({req_.ignore->path(), 0, 0, ignore_problem_, false});
  if (!req_.chosen.profile.empty()) apply_chosen_profile();
  apply_chosen_allocator(req_, out_);
  if (!req_.log.empty()) {
    if (auto bad = log_placeholder_problem(req_.log, "EDASHIM_LOG"); !bad.empty())
      out_.problems.push_back({"EDASHIM_LOG", 0, 0, bad, true});
    else
      out_.settings.log.set(req_.log, {"EDASHIM_LOG"});
  }
  if (!req_.supervise.empty()) {
    if (auto on = util::parse_switch(req_.supervise))
      out_.settings.supervise.set(*on, {"EDASHIM_SUPERVISE"});
    else
      out_.problems.push_back({"EDASHIM_SUPERVISE", 0, 0,
                               "EDASHIM_SUPERVISE=" + req_.supervise + " is not a clear on/off value (use 1 or 0)", false});
  }
  check_profile_mentions(mentions_, req_, section_names_, out_.problems);
  return std::move(out_);
}

std::string Loader::profile_owner(const std::string& name) const {
  if (name == "system" || util::exists(req_.shipped_dir + "/named/" + name + ".toml")) return "edashim's shipped";
  if (util::exists(req_.user_profiles_dir + "/" + name + ".toml") ||
      std::find(own_sections_.begin(), own_sections_.end(), name) != own_sections_.end())
    return "your";
  return "";
}

void Loader::consider(const std::string& path, FileKind kind, bool must_exist) {
  auto file = read_config_file(path);
  if (!file.found) {
    if (must_exist) out_.problems.push_back({path, 0, 0, "profile file not found", true});
    return;
  }
  ConsideredFile cf{path, kind, false, ""};
  if (!readable(file, cf)) return;
  if (kind == FileKind::project && ignored_by_choice(req_, path, file.content, cf, out_, ignore_problem_)) return;
  apply_read_file(file, cf);
}

// A file found but refused or unreadable is listed with why, and not applied.
bool Loader::readable(ConfigFile& file, ConsideredFile& cf) {
  // A project file that is not a regular file, or not the user's, is skipped with a word:
  // another user's FIFO at /tmp/.edashim.toml must not turn every run below /tmp plain. Where
  // anyone may leave one (foreign_in_foreign_dir), not even the word: only explain and doctor.
  if (!file.refused.empty() && cf.kind == FileKind::project) {
    if (auto quiet = foreign_file_note(cf.path, ::getuid()); !quiet.empty()) {
      cf.note = quiet;
      out_.files.push_back(cf);
      return false;
    }
    cf.note = "skipped: " + file.refused;
    out_.problems.push_back({cf.path, 0, 0, "skipped: " + file.refused, false});
    out_.files.push_back(cf);
    return false;
  }
  // The user's and the system's own files, and a profile asked for: an error, said as such.
  if (!file.refused.empty()) file.why = file.refused;
  if (file.why.empty()) return true;
  out_.out_of_descriptors |= file.no_descriptor;
  cf.note = "cannot read: " + file.why;
  out_.problems.push_back({cf.path, 0, 0, "cannot read this config file: " + file.why, true});
  out_.files.push_back(cf);
  return false;
}

void Loader::apply_read_file(const ConfigFile& file, ConsideredFile& cf) {
  const std::string& path = cf.path;
  const bool project = cf.kind == FileKind::project;
  std::vector<Problem> found;
  FileContext f{path, cf.kind, !project, &found, {}, &mentions_,
                [this](const std::string& name) { return profile_owner(name); }, req_.user_file + " or " + req_.system_file};
  auto parsed = parse_once(file.real, file.content, found, cf.note);
  // Hashing the file and reading the trust store is only needed when there is something to
  // trust, or a mistake to weigh; most project files only choose an allocator.
  bool checked = false;
  if (parsed && project && needs_trust(f, parsed->table)) {
    f.trusted = trusted_file(path, parsed->content);
    checked = true;
  }
  // What the layers below set, to return to if this file turns out to have an error: the run
  // is then plain, and explain must not show the broken file's other settings as applied.
  std::optional<Settings> below;
  if (parsed) below = out_.settings;
  if (parsed) apply_file(f, parsed->table, req_, out_.settings, section_names_, profile_sections_);
  if (project && !checked && any_error(found)) {
    f.trusted = trusted_file(path, file.content);
    for (auto& [section_file, _] : profile_sections_)
      if (section_file.path == path) section_file.trusted = f.trusted;  // its mistakes weigh the same
  }
  size_t first_problem = out_.problems.size();
  settle(f, found, out_.problems);
  if (!f.trusted) out_.not_trusted.push_back(path);
  if (!parsed) {
    out_.files.push_back(cf);
    return;
  }
  if (roll_back_if_broken(out_, first_problem, *below, cf, profile_sections_)) return;
  record_applied(f, parsed->table, cf);
}

// A file applied: listed as used, with what of it was ignored (untrusted), and its [profile.X]
// sections known as the user's own when the file is.
void Loader::record_applied(const FileContext& f, const toml::table& root, ConsideredFile& cf) {
  if (auto* pt = root.get_as<toml::table>("profile"); pt && f.kind != FileKind::project)
    for (const auto& [name, _] : *pt) own_sections_.emplace_back(name.str());
  cf.used = true;
  if (!f.ignored.empty()) {
    cf.note = "untrusted: ignored " + util::join(f.ignored, ", ") + " (trust it: edashim trust " +
              util::shell_quote(f.path) + ")";
    out_.untrusted_files.push_back(f.path);
    out_.ignored[f.path] = f.ignored;
  }
  out_.files.push_back(cf);
}

// The named profile asked for (--profile, EDASHIM_PROFILE): a path, or a name among the shipped
// and the user's profile files and the [profile.X] sections of the files read. Above every file.
void Loader::apply_chosen_profile() {
  const auto& chosen = req_.chosen;
  if (chosen.profile.find('/') != std::string::npos) {
    // An explicit path chosen by the user: their own file, so trusted.
    consider(chosen.profile, FileKind::profile, true);
    return;
  }
  bool found = !profile_sections_.empty();
  for (const auto& dir : profile_dirs(req_)) {
    std::string path = dir + "/" + chosen.profile + ".toml";
    if (util::exists(path)) {
      consider(path, FileKind::profile, false);
      found = true;
    }
  }
  for (auto& [f, table] : profile_sections_) apply_profile_section(f, table, req_, out_);
  if (!found) {
    auto near = util::nearest(chosen.profile, profile_names(req_, section_names_));
    out_.problems.push_back({chosen.profile_origin, 0, 0,
                             "no profile named '" + chosen.profile + "'" + (near ? "; did you mean '" + *near + "'?" : "") +
                                 " (see `edashim profiles` for the list)",
                             true});
  }
}

}  // namespace

Loaded load(const LoadRequest& req) { return Loader(req).load(); }

std::optional<Problem> syntax_problem(const std::string& path, const std::string& content) {
  Problem problem;
  std::string note;
  if (parse_text(path, content, problem, note)) return std::nullopt;
  return problem;
}

}  // namespace config
