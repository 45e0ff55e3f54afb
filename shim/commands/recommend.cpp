#include "commands/recommend.hpp"

#include "commands/own_settings.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cmath>
#include <ctime>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands/report.hpp"
#include "config/load.hpp"
#include "learn/adopt.hpp"
#include "learn/config_edit.hpp"
#include "learn/learned.hpp"
#include "learn/recommend.hpp"
#include "paths/files.hpp"
#include "runlog/schema.hpp"
#include "util/fs.hpp"
#include "util/machine.hpp"
#include "util/owned_file.hpp"
#include "util/strings.hpp"
#include "util/table.hpp"
#include "util/voice.hpp"

namespace commands {
namespace {

// --recommend is a part of report, and speaks as it.
const util::Voice voice("edashim report");

std::string num(double v, int digits) { return std::isnan(v) ? "-" : util::fixed(v, digits); }

std::string p_text(double p) {
  if (std::isnan(p)) return "-";
  if (p < 0.001) return "<0.001";
  return util::fixed(p, 3);
}


std::string now_iso() { return util::iso_time_utc(double(std::time(nullptr))); }

// The verdict's texts from the log (tool, CPU model, arms, signatures, path) as they may be
// printed: control characters escaped (util::printable).
learn::Verdict printable(learn::Verdict v) {
  for (auto* text : {&v.tool, &v.cpu, &v.current, &v.path}) *text = util::printable(*text);
  for (auto& c : v.candidates) {
    c.arm = util::printable(c.arm);
    for (auto& text : c.stopped) text = util::printable(text);
    for (auto& text : c.missing) text = util::printable(text);
  }
  return v;
}

void print_verdict(const learn::Verdict& raw, const std::vector<learn::BenchRecord>& benches, const learn::Rule& rule) {
  const learn::Verdict v = printable(raw);
  std::cout << "\n" << v.tool << " on " << (v.cpu.empty() ? "an unknown CPU model" : v.cpu);
  if (v.current.empty()) {
    std::cout << ": no successful run outside exploration yet, so no current choice to compare with\n";
    return;
  }
  std::cout << " (current choice: " << v.current << ", " << v.current_runs << " successful runs)\n";
  if (v.candidates.empty()) {
    std::cout << "  no other arm has run: nothing to compare (explore = 0.1 in your config tries others)\n";
    return;
  }
  util::Table t;
  t.headers = {"candidate", "runs", "vs", "signatures", "ratio", "95% CI", "p", "RSS", "failures", "verdict"};
  t.right_aligned = {false, true, true, true, true, true, true, true, true, false};
  for (const auto& c : v.candidates)
    t.rows.push_back({c.arm, std::to_string(c.runs), std::to_string(c.current_runs), std::to_string(c.signatures),
                      num(c.ratio, 2) + (std::isnan(c.ratio) ? "" : "x"),
                      std::isnan(c.ci.lo) ? "-" : util::fixed(c.ci.lo, 2) + "-" + util::fixed(c.ci.hi, 2), p_text(c.p),
                      num(c.rss_ratio, 2) + (std::isnan(c.rss_ratio) ? "" : "x"),
                      std::to_string(c.failures) + " vs " + std::to_string(c.current_failures),
                      c.holds() ? "meets the rule" : "no"});
  std::string table = util::render_text(t);
  for (const auto& line : util::split(table, '\n'))
    if (!line.empty()) std::cout << "  " << line << "\n";
  for (const auto& c : v.candidates) {
    for (const auto& why : c.missing) std::cout << "  " << c.arm << ": " << why << "\n";
    if (!c.stopped.empty())
      std::cout << "  " << c.arm << " stopped for signature" << (c.stopped.size() == 1 ? " " : "s ")
                << util::join(c.stopped, ", ") << "\n";
  }
  if (v.recommended < 0) {
    std::cout << "  => keep " << v.current << ": no candidate meets the rule\n";
    return;
  }
  const auto& best = v.candidates[std::size_t(v.recommended)];
  std::cout << "  => recommend " << best.arm << " for " << v.tool << ": " << util::fixed(best.ratio, 2) << "x wall time (95% CI "
            << util::fixed(best.ci.lo, 2) << "-" << util::fixed(best.ci.hi, 2) << ", p " << p_text(best.p) << "), RSS "
            << util::fixed(best.rss_ratio, 2) << "x, over " << best.runs + best.current_runs << " runs and "
            << best.signatures << " signatures. To adopt it, in ~/.config/edashim/config.toml:\n";
  for (const auto& line : util::split(learn::adopt_toml(raw.tool, raw.candidates[std::size_t(raw.recommended)].arm), '\n'))
    if (!line.empty()) std::cout << "     " << util::printable(line) << "\n";
  // bench takes profiles: the shipped named profile of each arm's allocator ("system" is
  // `baseline`); an arm with options needs a profile file holding them.
  auto profile = [](const std::string& arm) {
    auto parts = learn::parse_arm(arm);
    std::string family = parts ? parts->allocator : arm;
    return family == "system" ? std::string("baseline") : family;
  };
  // A bench that compared the outputs has already answered the question the advice asks.
  auto best_parts = learn::parse_arm(raw.candidates[std::size_t(raw.recommended)].arm);
  if (best_parts && learn::bench_confirms(benches, raw.tool, best_parts->allocator))
    std::cout << "     Its outputs: identical to the reference's in the latest bench that compared them.\n";
  else
    std::cout << "     An allocator can change a tool's output: confirm first that it does not, e.g.\n"
              << "     edashim bench --compare-outputs OUTPUT -p " << profile(v.current) << " -p " << profile(best.arm)
              << " -- " << v.tool << " ...\n";
  for (const auto* arm : {&v.current, &best.arm})
    if (arm->find('[') != std::string::npos)
      std::cout << "     (" << *arm << " has options: to bench it exactly, give -p a profile file that sets them)\n";
  (void)rule;
}

nlohmann::json verdict_json(const learn::Verdict& v) {
  auto nn = [](double d) { return std::isnan(d) ? nlohmann::json(nullptr) : nlohmann::json(d); };
  nlohmann::json j{{"tool", v.tool}, {"cpu", v.cpu}, {"current", v.current}, {"current_runs", v.current_runs}};
  j["candidates"] = nlohmann::json::array();
  for (const auto& c : v.candidates)
    j["candidates"].push_back({{"arm", c.arm}, {"runs", c.runs}, {"current_runs", c.current_runs},
                               {"signatures", c.signatures}, {"ratio", nn(c.ratio)}, {"ci", {nn(c.ci.lo), nn(c.ci.hi)}},
                               {"p", nn(c.p)}, {"rss_ratio", nn(c.rss_ratio)}, {"failures", c.failures},
                               {"current_failures", c.current_failures}, {"stopped", c.stopped},
                               {"meets_rule", c.holds()}, {"missing", c.missing}});
  j["recommended"] = v.recommended < 0 ? nlohmann::json(nullptr) : nlohmann::json(v.candidates[std::size_t(v.recommended)].arm);
  j["toml"] = v.recommended < 0 ? nlohmann::json(nullptr)
                                : nlohmann::json(learn::adopt_toml(v.tool, v.candidates[std::size_t(v.recommended)].arm));
  return j;
}

// adopt: the recommendation (or the re-check of what was learned) into learned.toml. The rule is
// learn/adopt.hpp's; here the facts it needs are gathered, the file written and its words said.
void adopt(const std::vector<learn::Verdict>& verdicts, const std::vector<learn::Run>& runs,
           const std::vector<learn::BenchRecord>& benches, const learn::Rule& rule, std::ostream& out) {
  const std::string cpu = util::cpu_model(nullptr).value_or("");
  const std::string file = paths::Files::discover().learned_file;
  std::vector<std::pair<const learn::Verdict*, config::Settings>> mine;
  for (const auto& v : verdicts) {
    auto settings = own_settings(v.tool);
    auto gate = learn::adopt_gate(v, settings.adopt.value, cpu);
    if (!gate.said.empty()) out << gate.said << "\n";
    if (gate.acts) mine.emplace_back(&v, std::move(settings));
  }
  if (mine.empty()) return;
  auto updated = learn::update_learned(
      file,
      [&](std::vector<learn::Learned>& entries) {
        bool changed = false;
        for (const auto& [v, settings] : mine) {
          learn::AdoptFacts facts{learn::identity_of(v->path), settings.adopt_requires_bench.value,
                                  settings.adopt_requires_bench.origin.str(), file, now_iso()};
          auto step = learn::adopt_verdict(*v, facts, runs, benches, rule, entries);
          for (const auto& line : step.said) out << line << "\n";
          changed = step.changed || changed;
        }
        return changed;
      });
  if (!updated) out << "adopt: " << util::printable(updated.error()) << "\n";
}

// Lines of one log left out because what they name is not something edashim takes from a log:
// said once per file and reason, so a forged log cannot flood the terminal either.
struct Ignored {
  std::map<std::string, std::size_t> lines;  // reason -> lines
  void say(const std::string& file) const {
    constexpr std::size_t kShown = 5;
    std::size_t shown = 0, more_lines = 0;
    for (const auto& [why, n] : lines) {
      if (shown++ < kShown) {
        voice("ignoring ", n, " log line", n == 1 ? "" : "s", " of ", util::printable(file), ": ", why);
      } else {
        more_lines += n;
      }
    }
    if (shown > kShown)
      voice("ignoring ", more_lines, " more log lines of ", util::printable(file), " naming ", shown - kShown,
            " other arms or tools edashim does not take from a log");
  }
};

// Why a record's tool or arm cannot be used, "" when both can.
std::string unusable(const runlog::RunRecord& r) {
  if (!learn::is_tool_name(r.tool)) return "tool '" + util::printable(r.tool) + "' is not a file name";
  if (r.record.empty() && !r.arm.empty())
    if (auto why = learn::arm_problem(r.arm); !why.empty()) return "arm '" + util::printable(r.arm) + "' " + why;
  return "";
}

struct Evidence {
  std::vector<learn::Run> runs;
  std::vector<learn::BenchRecord> benches;
  std::size_t without_fields = 0, without_status = 0;
  std::vector<LogRead> reads;
};

Evidence read_evidence(const std::vector<std::string>& files, const std::vector<std::string>& tools,
                       const util::SharedDirs& shared) {
  Evidence ev;
  for (const auto& file : files) {
    Ignored ignored;
    auto reads = scan_logs({file}, shared, [&](const runlog::RunRecord& r) {
      if (!tools.empty() && std::find(tools.begin(), tools.end(), r.tool) == tools.end()) return;
      if (r.record != runlog::key::bench_outputs && !r.record.empty()) return;
      if (auto why = unusable(r); !why.empty()) {
        ++ignored.lines[why];
        return;
      }
      if (r.record == runlog::key::bench_outputs) {
        ev.benches.push_back({r.tool, r.start_unix, r.identical_arms, r.differing_arms});
        return;
      }
      if (!r.has_machine || r.signature.empty() || r.arm.empty()) {
        ++ev.without_fields;
        return;
      }
      // edashim exec'd the tool in its place with nobody to measure it, or its peak memory is unknown
      if ((!r.status && !r.exit_code && !r.signal) || r.figures_unknown) {
        ++ev.without_status;
        return;
      }
      ev.runs.push_back({r.tool, r.cpu, r.signature, r.arm, r.path, r.explored, r.ok(), r.start_unix, r.wall_s,
                         r.max_rss_kb, r.bench_experiment});
    });
    ignored.say(file);
    ev.reads.insert(ev.reads.end(), reads.begin(), reads.end());
  }
  return ev;
}

// --write: the recommended settings merged into the file, or why not.
int write_config(const std::string& file, const std::vector<learn::Verdict>& verdicts, const util::SharedDirs& shared,
                 std::ostream& out) {
  std::vector<learn::KeySetting> settings;
  std::vector<std::string> tools;
  for (const auto& v : verdicts) {
    if (v.recommended < 0) continue;
    auto s = learn::adopt_settings(v.tool, v.candidates[std::size_t(v.recommended)].arm);
    settings.insert(settings.end(), s.begin(), s.end());
    tools.push_back(v.tool);
  }
  const std::string shown = util::printable(file);
  if (settings.empty()) {
    out << "--write: nothing recommended, " << shown << " left as it is\n";
    return 0;
  }
  std::string target = util::real_path(file).value_or(file);  // write through a link, keep the link
  // A first --write, before edashim ever wrote a config: ~/.config/edashim is made, the user's own.
  if (std::string dir = util::dirname(target); !util::exists(target) && !util::is_directory(dir)) {
    if (auto refused = util::make_owned_dir(dir, shared, 0700); !refused)
      return voice.fail("--write: " + refused.error() + "; nothing written");
  }
  auto existing = util::exists(target) ? util::read_file(target, 1 << 20) : std::optional<std::string>();
  if (util::exists(target) && !existing) return voice.fail("cannot read " + shown + " (or it is larger than 1 MiB); nothing written");
  auto edit = learn::merge_settings(existing, shown, settings,
                                    "added by edashim report --recommend, " + now_iso() + ": " + util::join(tools, ", "));
  if (!edit.refused.empty()) return voice.fail("not written: " + edit.refused);
  if (edit.unchanged) {
    out << "--write: " << shown << " already says this; unchanged\n";
    return 0;
  }
  // The file as merged against, still: an edit made meanwhile is never written over.
  if ((util::exists(target) ? util::read_file(target, 1 << 20) : std::optional<std::string>()) != existing)
    return voice.fail(shown + " changed while the settings were merged into it; nothing written: run it again");
  struct stat st_mode;
  mode_t mode = ::stat(target.c_str(), &st_mode) == 0 ? (st_mode.st_mode & 07777) : 0644;
  if (!util::write_file_atomic(target, edit.text, mode)) {
    int err = errno;
    return voice.fail("cannot write " + shown + ": " + std::strerror(err));
  }
  out << "--write: added to " << shown << ":\n";
  for (const auto& line : util::split(learn::render_settings(settings), '\n'))
    if (!line.empty()) out << "  " << util::printable(line) << "\n";
  return 0;
}

}  // namespace

int run_recommend(const RecommendOptions& o) {
  const util::SharedDirs shared = user_shared_dirs();
  auto logs = select_logs(o.logs, voice, shared);
  if (logs.status == 2) return 2;
  auto ev = read_evidence(logs.files, o.tools, shared);
  // A log that cannot be read (or is refused) is named and the others still count; but a
  // verdict from part of the evidence must not change what runs: no adopting, no --write, and
  // exit status 1.
  std::size_t failed = logs.unreadable, read = 0;
  ReadStats st;
  std::vector<std::string> paths;
  for (const auto& r : ev.reads) {
    if (!r.error.empty()) {
      voice(util::printable(r.error), ev.reads.size() > 1 ? " (the other logs still count)" : "");
      ++failed;
    }
    if (r.error.empty() || r.stats.lines) ++read;
    st.lines += r.stats.lines;
    st.malformed += r.stats.malformed;
    paths.push_back(r.path);
  }
  if (read == 0 && failed) return 1;
  std::string path = paths.size() == 1 ? paths[0] : std::to_string(paths.size()) + " logs";
  learn::Rule rule;
  rule.rss_max = o.rss_budget;
  auto verdicts = learn::recommend(ev.runs, rule);
  if (o.json) {
    nlohmann::json j{{"rule", learn::rule_text(rule)}, {"log", path}, {"logs", paths}, {"runs_used", ev.runs.size()},
                     {"runs_without_learning_fields", ev.without_fields}, {"verdicts", nlohmann::json::array()}};
    for (const auto& v : verdicts) j["verdicts"].push_back(verdict_json(v));
    std::cout << json_text(j) << "\n";
  } else {
    std::cout << "Rule: " << learn::rule_text(rule) << ".\n";
    if (st.malformed) std::cout << st.malformed << " of " << st.lines << " lines are not records and were skipped.\n";
    if (ev.without_fields)
      std::cout << ev.without_fields << " run" << (ev.without_fields == 1 ? " has" : "s have")
                << " no machine, signature or arm (logged before edashim recorded them) and "
                << (ev.without_fields == 1 ? "was" : "were") << " left out.\n";
    if (ev.without_status) std::cout << ev.without_status << " runs without a status or figures (edashim exec'd the tool) were left out.\n";
    if (verdicts.empty()) std::cout << "No runs to compare in " << util::printable(path) << ".\n";
    for (const auto& v : verdicts) print_verdict(v, ev.benches, rule);
  }
  // What adopting and --write did: after the verdicts, or beside the JSON (which is all stdout holds).
  std::ostream& out = o.json ? std::cerr : std::cout;
  // What is said about the verdicts comes after them in a log of both streams.
  std::cout.flush();
  if (failed) {
    out << "The verdicts are from the logs that could be read (" << failed << " could not): nothing is adopted"
        << (o.write.empty() ? "" : " or written to " + util::printable(o.write)) << " on part of the evidence.\n";
    return 1;
  }
  adopt(verdicts, ev.runs, ev.benches, rule, out);
  out.flush();
  return o.write.empty() ? 0 : write_config(o.write, verdicts, shared, out);
}

Subcommand add_forget_command(CLI::App& app) {
  auto tool = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("forget", "Drop learned choices (all tools, or one): runs go back to your configuration");
  cmd->add_option("tool", *tool, "Only this tool");
  cmd->footer("Example: edashim forget yosys   yosys runs as configured again\n"
              "Learned choices live in $XDG_STATE_HOME/edashim/learned.toml (adopt = true and edashim report --recommend).");
  return {cmd, [tool] {
            std::string file = paths::Files::discover().learned_file;
            std::size_t dropped = 0;
            auto updated = learn::update_learned(
                file,
                [&](std::vector<learn::Learned>& entries) {
                  auto before = entries.size();
                  entries.erase(std::remove_if(entries.begin(), entries.end(),
                                               [&](const learn::Learned& l) { return tool->empty() || l.tool == *tool; }),
                                entries.end());
                  dropped = before - entries.size();
                  return dropped > 0;
                },
                /*start_over_if_broken=*/tool->empty());
            if (!updated) return util::Voice("edashim forget").fail(updated.error());
            std::cout << "edashim forget: dropped " << dropped << " learned choice" << (dropped == 1 ? "" : "s")
                      << (tool->empty() ? "" : " for " + *tool) << "\n";
            return 0;
          }};
}

}  // namespace commands
