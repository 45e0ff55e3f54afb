#include "bench/present.hpp"

#include <unistd.h>

#include <set>

#include "bench/command_tool.hpp"
#include "bench/svg.hpp"
#include "bench/verdict.hpp"
#include "report/aggregate.hpp"
#include "util/fs.hpp"

namespace bench {
namespace {

struct Rendering {
  std::string kind, path, content;
};

// Every export, in the order given: JSON, Markdown, CSV, plot.
std::vector<Rendering> renderings(const Spec& spec, const BenchResult& o, const std::vector<ArmStats>& arms,
                                  const Exports& x) {
  std::vector<Rendering> out;
  if (!x.json.empty()) {
    std::string json = bench_json(spec, o, arms) + "\n";
    for (const auto& p : x.json) out.push_back({"JSON", p, json});
  }
  if (!x.markdown.empty()) {
    std::string md = render_report(spec, o, arms, true, true);
    for (const auto& p : x.markdown) out.push_back({"Markdown", p, md});
  }
  if (!x.csv.empty()) {
    std::string csv = util::render_csv(bench_table(arms, spec.compare, false));
    for (const auto& p : x.csv) out.push_back({"CSV", p, csv});
  }
  if (!x.plot.empty()) {
    std::string cmd = report::command_line(spec.command);
    std::string subtitle = std::to_string(spec.runs) + " runs per arm, interleaved, " + std::to_string(spec.jobs) +
                           " at a time; " + o.machine;
    auto paired = analyse_paired(spec, o);
    std::vector<double> judged_ratios;
    for (std::size_t a = 0; a < arms.size(); ++a) judged_ratios.push_back(judged(arms, a, &paired).ratio);
    out.push_back({"plot", x.plot, plot_bench(arms, cmd.size() > 110 ? cmd.substr(0, 107) + "..." : cmd, subtitle, judged_ratios)});
  }
  return out;
}

}  // namespace

std::string check_exports(const Exports& x) {
  std::vector<std::string> problems;
  std::set<std::string> seen;
  int to_stdout = 0;
  auto check = [&](const std::string& option, const std::string& path) {
    if (path == "-") {
      if (option == "--plot") problems.push_back("--plot -: the plot goes to a file");
      else ++to_stdout;
      return;
    }
    if (path.empty()) {
      problems.push_back(option + ": an empty file name");
      return;
    }
    auto canonical = util::real_path(util::dirname(path));
    std::string key = (canonical ? *canonical : util::dirname(path)) + "/" + util::basename(path);
    if (!seen.insert(key).second) problems.push_back(option + " " + path + ": named twice; each export needs a file of its own");
    std::string dir = util::dirname(path);
    if (!util::is_directory(dir))
      problems.push_back(option + " " + path + ": no directory " + dir + " to write it in");
    else if (::access(dir.c_str(), W_OK) != 0)
      problems.push_back(option + " " + path + ": the directory " + dir + " is not writable");
    else if (util::is_directory(path))
      problems.push_back(option + " " + path + ": is a directory; name a file");
  };
  for (const auto& p : x.json) check("--export-json", p);
  for (const auto& p : x.markdown) check("--export-markdown", p);
  for (const auto& p : x.csv) check("--export-csv", p);
  if (!x.plot.empty()) check("--plot", x.plot);
  if (to_stdout > 1) problems.push_back("only one export can go to stdout (-)");
  std::string s;
  for (const auto& p : problems) s += (s.empty() ? "" : "\n") + p;
  return s;
}

std::string render_report(const Spec& spec, const BenchResult& o, const std::vector<ArmStats>& arms, bool md, bool wide) {
  wide = wide || md;
  auto render = [md](const util::Table& t) { return md ? util::render_markdown(t) : util::render_text(t); };
  // Prose wrapped for an 100-column terminal (Markdown reflows it anyway).
  auto prose = [md](const std::string& text) { return (md ? text : wrap(text, 100)) + "\n"; };
  std::string cmd = report::command_line(spec.command);
  std::string head = "`" + cmd + "`: " + std::to_string(spec.runs) + " runs per arm, " + std::to_string(spec.warmup) +
                     " warm-up, " + (o.rounds.empty() ? std::to_string(spec.jobs) + " at a time" : std::string("a round per farm task")) +
                     (spec.fresh_copy.empty() ? "" : ", fresh copy on " + spec.on) + "; " + o.machine;
  std::string ref = arms.empty() ? std::string() : arms[0].name;
  auto paired = analyse_paired(spec, o);
  std::string s = prose(head) + "\n" + render(wide ? bench_table(arms, spec.compare, true) : narrow_table(arms, paired)) + "\n";
  s += prose(wide ? "Ratios are to the first arm (" + ref + "). CI: bootstrap 95% of the median ratio. \u03c3: standard deviation "
                    "(n - 1). Failed runs are excluded. Peak RSS: the tool's largest process's resident high-water mark; "
                    "peak VM: the largest VmPeak over its processes; both medians over the runs."
                  : "ratio: median over rounds of time / " + ref + "'s in the same round, 95% CI resampling rounds "
                    "(below " + std::to_string(kVerdictMinPairs) + " rounds: median time / " + ref + "'s, bootstrap "
                    "CI). p: one-sided Wilcoxon signed-rank test on the rounds (H1: faster than " + ref + "). Failed "
                    "runs excluded; RSS: median peak resident. Every ratio: below 1 is faster (smaller). --wide: all columns.");
  if (auto note = vm_note(arms); wide && !note.empty()) s += prose("Peak VM \"-\": " + note + ".");
  if (wide && arms.size() > 1) {
    s += "\nPaired by round (each arm against " + ref + " in the same round, on the same node):\n\n" +
         render(paired_table(paired)) + "\n";
    s += prose("Paired ratio: median over rounds of the arm's time / " + ref +
               "'s time. CI: bootstrap 95%, resampling rounds. Wilcoxon p: one-sided signed-rank on the rounds' log "
               "ratios, H1: the arm is faster. A round where either run failed or is missing is left out.");
  }
  if (arms.size() > 1 && several_nodes(paired)) {
    s += "\nBy node (paired ratio, pairs in parentheses):\n\n" + render(hosts_table(paired)) + "\n" + render(cpus_table(paired));
    for (const auto& w : paired.warnings) s += "\n" + prose("Warning: " + w);
  }
  if (spec.compare) {
    std::string head = "Outputs over each arm's successful runs (identical: one content in every run; varies: more "
                       "than one; missing: no run left it)";
    if (!spec.stdout_filter.empty()) head += "; lines matching /" + spec.stdout_filter + "/ left out of stdout";
    s += "\n" + prose(head + ":") + "\n" + render(outputs_table(spec, arms));
  }
  std::string tool = tool_name(spec.command);
  if (auto verdict = render_verdict(decide(spec, arms, tool, &paired), md); !verdict.empty()) s += "\n" + verdict;
  return s;
}

bool present(const Spec& spec, const BenchResult& o, const std::vector<ArmStats>& arms, const Exports& x,
             std::ostream& out, std::ostream& aside, const util::Voice& voice) {
  for (const auto& w : all_warnings(spec, o, arms)) voice.say("warning: " + w);
  for (const auto& a : arms) {
    // A broken command fails every run the same way: three lines say it, thirty bury the table.
    for (std::size_t i = 0; i < a.failures.size() && i < 3; ++i) voice.say(a.name + " failed, " + a.failures[i]);
    if (a.failures.size() > 3)
      voice(a.name, ": ", a.failures.size() - 3, " more failed runs (all in the JSON export)");
  }
  if (o.interrupted) voice.say("interrupted; figures below cover the runs that finished");
  auto files = renderings(spec, o, arms, x);
  bool stdout_taken = false;
  for (const auto& f : files) stdout_taken |= f.path == "-";
  // What is said comes before the table in a log of both streams.
  (stdout_taken ? aside : out) << std::flush << render_report(spec, o, arms, false, x.wide) << std::flush;
  bool ok = true;
  for (const auto& f : files) {
    if (f.path == "-") {
      out << f.content << std::flush;
    } else if (o.interrupted) {
      voice.say("interrupted: " + f.kind + " not written to " + f.path);
    } else if (util::write_file_atomic(f.path, f.content)) {
      voice.say(f.kind + " written to " + f.path);
    } else {
      voice.say("cannot write the " + f.kind + " to " + f.path + " (left as it was)");
      ok = false;
    }
  }
  return ok;
}

std::string arm_name(const std::string& profile) {
  if (profile.find('/') == std::string::npos) return profile;
  std::string b = util::basename(profile);
  if (b.size() > 5 && b.substr(b.size() - 5) == ".toml") b.resize(b.size() - 5);
  return b;
}

}  // namespace bench
