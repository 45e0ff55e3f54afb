// Issue 15: recommend's rule on synthetic runs, the adopting TOML and its merge into a user's
// file, the learned file, and the learned layer of the configuration. The statistics themselves
// are checked against scipy in test_stats.cpp.
#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch.hpp>

#include "bench/outputs_record.hpp"
#include "config_fixture.hpp"
#include "util/toml_nesting.hpp"
#include "learn/config_edit.hpp"
#include "learn/learned.hpp"
#include "learn/recommend.hpp"
#include "pipeline/learned_layer.hpp"
#include "runlog/read.hpp"
#include "temp_dir.hpp"

namespace {

// `n` runs of `arm` on each signature, wall = base(signature) * factor (base: 2 s for "s1", 3 s
// for "s2", ...), with a small
// deterministic spread (+-2%), started after `t0`.
void add_runs(std::vector<learn::Run>& runs, const std::string& arm, const std::vector<std::string>& signatures, int n,
              double factor, double t0, bool explored = false, double rss = 1000) {
  for (std::size_t s = 0; s < signatures.size(); ++s)
    for (int i = 0; i < n; ++i) {
      learn::Run r;
      r.tool = "yosys";
      r.cpu = "CPU X";
      r.signature = signatures[s];
      r.arm = arm;
      r.path = "/usr/bin/yosys";
      r.explored = explored;
      r.ok = true;
      r.start_unix = t0 + double(s * 100 + std::size_t(i));
      r.wall_s = (1.0 + double(signatures[s].back() - '0')) * factor * (1 + 0.01 * double((i * 7) % 5 - 2));
      r.max_rss_kb = rss * (1 + 0.001 * double(i % 3));
      runs.push_back(r);
    }
}

const learn::Comparison* find(const learn::Verdict& v, const std::string& arm) {
  for (const auto& c : v.candidates)
    if (c.arm == arm) return &c;
  return nullptr;
}

bool says(const learn::Comparison& c, const std::string& text) {
  for (const auto& m : c.missing)
    if (m.find(text) != std::string::npos) return true;
  return false;
}

const std::vector<std::string> kFour{"s1", "s2", "s3", "s4"};

}  // namespace

TEST_CASE("Recommend: a clearly faster arm over enough runs and signatures is recommended", "[recommend]") {
  std::vector<learn::Run> runs;
  add_runs(runs, "mimalloc", kFour, 12, 0.8, 1000, /*explored=*/true);
  add_runs(runs, "jemalloc", kFour, 12, 1.0, 2000);  // latest non-explored: the current choice
  auto v = learn::recommend(runs);
  REQUIRE(v.size() == 1);
  CHECK(v[0].tool == "yosys");
  CHECK(v[0].cpu == "CPU X");
  CHECK(v[0].current == "jemalloc");
  REQUIRE(v[0].recommended == 0);
  const auto& c = v[0].candidates[0];
  CHECK(c.arm == "mimalloc");
  CHECK(c.runs == 48);
  CHECK(c.current_runs == 48);
  CHECK(c.signatures == 4);
  CHECK_THAT(c.ratio, Catch::Matchers::WithinAbs(0.8, 0.01));
  CHECK(c.ci.hi < 0.97);
  CHECK(c.p < 0.01);
  CHECK_THAT(c.rss_ratio, Catch::Matchers::WithinAbs(1.0, 0.01));
  CHECK(c.holds());
}

TEST_CASE("Recommend: the current choice is the latest non-explored successful run's arm", "[recommend]") {
  std::vector<learn::Run> runs;
  add_runs(runs, "jemalloc", kFour, 12, 1.0, 1000);
  add_runs(runs, "mimalloc", kFour, 12, 0.8, 2000, /*explored=*/true);  // later, but explored
  auto v = learn::recommend(runs);
  REQUIRE(v.size() == 1);
  CHECK(v[0].current == "jemalloc");
  CHECK(v[0].recommended == 0);
  // Non-explored: mimalloc is what runs now, and jemalloc, slower, is no recommendation.
  for (auto& r : runs) r.explored = false;
  v = learn::recommend(runs);
  CHECK(v[0].current == "mimalloc");
  CHECK(v[0].recommended == -1);
  REQUIRE(find(v[0], "jemalloc"));
  CHECK(says(*find(v[0], "jemalloc"), "slower: 1.25x"));
}

// Issue 28 item 1: one bench (interleaved, the same experiment for both arms) of min_runs runs per
// arm is evidence enough on its own signature; the same runs outside a bench, or a bench too
// short, or two benches each of one arm, are not.
TEST_CASE("Recommend: one bench of both arms is enough evidence for its signature", "[recommend]") {
  auto from_bench = [](std::vector<learn::Run>& runs, std::size_t from, const std::string& experiment) {
    for (std::size_t i = from; i < runs.size(); ++i) runs[i].bench_experiment = experiment;
  };
  std::vector<learn::Run> runs;
  add_runs(runs, "mimalloc", {"s1"}, 10, 0.8, 1000, true);
  add_runs(runs, "jemalloc", {"s1"}, 10, 1.0, 2000);
  auto plain = learn::recommend(runs);
  REQUIRE(plain[0].candidates.size() == 1);
  CHECK(plain[0].recommended == -1);
  CHECK(says(plain[0].candidates[0], "thin evidence: 10 runs of mimalloc and 10 of jemalloc over 1 signature"));
  from_bench(runs, 0, "b1");
  auto v = learn::recommend(runs);
  CHECK(v[0].candidates[0].benched_signatures == 1);
  CHECK(v[0].candidates[0].missing.empty());
  CHECK(v[0].recommended == 0);
  // Each arm from a bench of its own: not one interleaved comparison.
  from_bench(runs, 10, "b2");
  v = learn::recommend(runs);
  CHECK(v[0].candidates[0].benched_signatures == 0);
  CHECK(v[0].recommended == -1);
  // A bench of fewer than min_runs runs per arm is thin still.
  runs.clear();
  add_runs(runs, "mimalloc", {"s1"}, 9, 0.8, 1000, true);
  add_runs(runs, "jemalloc", {"s1"}, 9, 1.0, 2000);
  from_bench(runs, 0, "b1");
  v = learn::recommend(runs);
  CHECK(v[0].recommended == -1);
  CHECK(says(v[0].candidates[0], "thin evidence: 9 runs"));
  // The rest of the rule still holds for a bench: no gain, no recommendation.
  runs.clear();
  add_runs(runs, "mimalloc", {"s1"}, 10, 1.0, 1000, true);
  add_runs(runs, "jemalloc", {"s1"}, 10, 1.0, 2000);
  from_bench(runs, 0, "b1");
  v = learn::recommend(runs);
  CHECK(v[0].recommended == -1);
  CHECK(v[0].candidates[0].benched_signatures == 1);
  // The run log's lines carry the experiment (bench::mark_bench_line), and a plain run none.
  runlog::RunRecord r;
  REQUIRE(runlog::parse_run_line(R"({"tool":"yosys","bench":{"experiment":"e-17","arm":"jemalloc","round":3},"arm":"jemalloc"})", r));
  CHECK(r.bench_experiment == "e-17");
  CHECK(r.arm == "jemalloc");
  REQUIRE(runlog::parse_run_line(R"({"tool":"yosys","bench":null,"arm":"jemalloc"})", r));
  CHECK(r.bench_experiment.empty());
}

TEST_CASE("Recommend: thin evidence is said with its numbers", "[recommend]") {
  std::vector<learn::Run> runs;
  add_runs(runs, "mimalloc", {"s1"}, 4, 0.8, 1000, true);
  add_runs(runs, "jemalloc", {"s1"}, 4, 1.0, 2000);
  auto v = learn::recommend(runs);
  REQUIRE(v[0].candidates.size() == 1);
  CHECK(v[0].recommended == -1);
  CHECK(says(v[0].candidates[0], "thin evidence: 4 runs of mimalloc and 4 of jemalloc over 1 signature"));
  // Many runs, too few signatures: still thin.
  runs.clear();
  add_runs(runs, "mimalloc", {"s1", "s2"}, 30, 0.8, 1000, true);
  add_runs(runs, "jemalloc", {"s1", "s2"}, 30, 1.0, 2000);
  v = learn::recommend(runs);
  CHECK(v[0].recommended == -1);
  CHECK(says(v[0].candidates[0], "over 2 signatures"));
}

TEST_CASE("Recommend: a gain on some commands and a loss on others is mixed", "[recommend]") {
  std::vector<learn::Run> runs;
  add_runs(runs, "mimalloc", {"s1", "s2"}, 12, 0.8, 1000, true);
  add_runs(runs, "mimalloc", {"s3", "s4"}, 12, 1.15, 1000, true);
  add_runs(runs, "jemalloc", kFour, 12, 1.0, 2000);
  auto v = learn::recommend(runs);
  CHECK(v[0].recommended == -1);
  const auto& c = v[0].candidates[0];
  CHECK(c.ci.lo < 0.97);
  CHECK(c.ci.hi > 0.97);
  CHECK(says(c, "mixed: "));
  CHECK(says(c, "(needs upper bound < 0.97)"));
}

TEST_CASE("Recommend: peak RSS over the budget blocks a faster arm", "[recommend]") {
  std::vector<learn::Run> runs;
  add_runs(runs, "tcmalloc", kFour, 12, 0.8, 1000, true, 1300);
  add_runs(runs, "jemalloc", kFour, 12, 1.0, 2000, false, 1000);
  auto v = learn::recommend(runs);
  CHECK(v[0].recommended == -1);
  CHECK_THAT(v[0].candidates[0].rss_ratio, Catch::Matchers::WithinAbs(1.3, 0.01));
  CHECK(says(v[0].candidates[0], "peak RSS 1.300x over the budget 1.10x"));
  learn::Rule generous;
  generous.rss_max = 1.5;
  CHECK(learn::recommend(runs, generous)[0].recommended == 0);
}

TEST_CASE("Recommend: a failure where the current choice succeeded stops the candidate for that signature", "[recommend]") {
  std::vector<learn::Run> runs;
  add_runs(runs, "mimalloc", kFour, 12, 0.8, 1000, true);
  add_runs(runs, "jemalloc", kFour, 12, 1.0, 2000);
  learn::Run bad = runs.front();  // mimalloc on s1
  bad.ok = false;
  runs.push_back(bad);
  auto v = learn::recommend(runs);
  CHECK(v[0].recommended == -1);
  const auto& c = v[0].candidates[0];
  CHECK(c.stopped == std::vector<std::string>{"s1"});
  CHECK(c.signatures == 3);  // s1 left out of the comparison
  CHECK(c.failures == 1);
  CHECK(c.current_failures == 0);
  CHECK(says(c, "stopped on 1 signature: failed where jemalloc succeeded"));
  CHECK(says(c, "more failures than jemalloc on 1 signature"));
}

TEST_CASE("Recommend: arms, their TOML, and a bench's word on outputs", "[recommend]") {
  auto parts = learn::parse_arm("mimalloc[eager_commit_delay=4,purge_delay=0]");
  REQUIRE(parts);
  CHECK(parts->allocator == "mimalloc");
  REQUIRE(parts->options.size() == 2);
  CHECK(parts->options[1] == std::pair<std::string, std::string>{"purge_delay", "0"});
  CHECK_FALSE(learn::parse_arm("mimalloc[eager_commit_delay"));
  CHECK_FALSE(learn::parse_arm("[x=1]"));
  CHECK(learn::adopt_toml("yosys", "jemalloc") == "[tool.yosys]\nallocator = \"jemalloc\"\n");
  CHECK(learn::adopt_toml("vpr", "system[mmap_threshold=4096,top_pad=0]") ==
        "[tool.vpr]\nallocator = \"system\"\n\n[tool.vpr.glibc]\nmmap_threshold = 4096\ntop_pad = 0\n");
  CHECK(learn::adopt_toml("python3.11", "mimalloc[reserve_os_memory=64M]") ==
        "[tool.\"python3.11\"]\nallocator = \"mimalloc\"\n\n[tool.\"python3.11\".mimalloc]\nreserve_os_memory = \"64M\"\n");
  CHECK(learn::option_value_of("0.5") == alloc::OptionValue(0.5));
  CHECK(learn::option_value_of("-1") == alloc::OptionValue(int64_t(-1)));
  CHECK(learn::option_value_of("007") == alloc::OptionValue(std::string("007")));
  CHECK(learn::option_value_of("true") == alloc::OptionValue(true));
  CHECK(learn::option_value_of("64M") == alloc::OptionValue(std::string("64M")));
  CHECK(learn::option_value_of("99999999999999999999") == alloc::OptionValue(std::string("99999999999999999999")));

  std::vector<learn::BenchRecord> benches{{"yosys", 10, {"system", "mimalloc"}, {"tcmalloc"}},
                                          {"yosys", 20, {"system", "jemalloc"}, {"mimalloc"}},
                                          {"vpr", 30, {"system", "tcmalloc"}, {}}};
  CHECK(learn::bench_confirms(benches, "yosys", "jemalloc"));
  CHECK_FALSE(learn::bench_confirms(benches, "yosys", "mimalloc"));  // the latest bench of it differed
  CHECK_FALSE(learn::bench_confirms(benches, "yosys", "tcmalloc"));
  CHECK(learn::bench_confirms(benches, "vpr", "tcmalloc"));
  CHECK_FALSE(learn::bench_confirms(benches, "nextpnr-ice40", "tcmalloc"));
}

TEST_CASE("Recommend --write: merged into the user's file, never over what they set", "[recommend]") {
  auto settings = learn::adopt_settings("yosys", "mimalloc[eager_commit_delay=4]");
  REQUIRE(settings.size() == 2);
  // No file: a new one.
  auto fresh = learn::merge_settings(std::nullopt, "c.toml", settings, "added");
  CHECK(fresh.refused.empty());
  CHECK(fresh.text == "# added\n[tool.yosys]\nallocator = \"mimalloc\"\n\n[tool.yosys.mimalloc]\neager_commit_delay = 4\n");
  // The user's comments, keys and order stay; the key goes under their [tool.yosys].
  std::string mine = "# my settings\nprobe = false  # quiet\n\n[tool.yosys]\nscratch = true\n\n[tool.vpr]\nallocator = \"tcmalloc\"\n";
  auto merged = learn::merge_settings(mine, "c.toml", settings, "added");
  CHECK(merged.refused.empty());
  CHECK(merged.text ==
        "# my settings\nprobe = false  # quiet\n\n[tool.yosys]\nallocator = \"mimalloc\"\nscratch = true\n\n[tool.vpr]\n"
        "allocator = \"tcmalloc\"\n\n# added\n[tool.yosys.mimalloc]\neager_commit_delay = 4\n");
  // Already there: unchanged.
  auto again = learn::merge_settings(merged.text, "c.toml", settings, "added");
  CHECK(again.unchanged);
  CHECK(again.refused.empty());
  // The user chose another allocator: refused, with the line, nothing changed.
  auto theirs = learn::merge_settings("\n[tool.yosys]\nallocator = \"jemalloc\"\n", "c.toml", settings, "added");
  CHECK(theirs.refused.find("c.toml:3: [tool.yosys] already sets allocator") != std::string::npos);
  CHECK(theirs.text.empty());
  // Inline tables cannot be added to safely: refused.
  auto inline_table = learn::merge_settings("tool = { yosys = { scratch = true } }\n", "c.toml", settings, "added");
  CHECK(inline_table.refused.find("inline or with dotted keys") != std::string::npos);
  // Not TOML: refused, not overwritten.
  auto broken = learn::merge_settings("allocator = \n", "c.toml", settings, "added");
  CHECK(broken.refused.find("c.toml:1: not valid TOML") != std::string::npos);
}

TEST_CASE("Learned file: written and read back, a broken one is an error", "[recommend]") {
  learn::Learned l;
  l.tool = "yosys";
  l.cpu = "AMD EPYC \"7B13\"";
  l.arm = "mimalloc[eager_commit_delay=4]";
  l.replaces = "jemalloc";
  l.binary = {"/usr/bin/yosys", 123456, 1700000000, 123};
  l.runs = 143;
  l.signatures = 9;
  l.ratio = 0.84;
  l.ci_lo = 0.8;
  l.ci_hi = 0.88;
  l.rss_ratio = 1.04;
  l.p = 1.5e-7;
  l.date = "2026-12-01T22:00:00.000Z";
  auto back = learn::parse_learned(learn::render_learned({l, l}), "learned.toml");
  REQUIRE(back.ok());
  REQUIRE(back->size() == 2);
  const auto& r = (*back)[0];
  CHECK(r.cpu == l.cpu);
  CHECK(r.arm == l.arm);
  CHECK(r.binary == l.binary);
  CHECK(r.runs == 143);
  CHECK(r.p == 1.5e-7);
  CHECK(r.line > 0);
  CHECK(learn::describe(r) ==
        "allocator mimalloc [eager_commit_delay=4]: learned from 143 runs over 9 commands on this CPU model, 0.84x, "
        "95% CI 0.80-0.88, RSS 1.04x (against jemalloc)");
  auto partial = learn::parse_learned("[[choice]]\ntool = \"yosys\"\n", "learned.toml");
  REQUIRE_FALSE(partial.ok());
  CHECK(partial.error().find("learned.toml:1: 'cpu' must be a string") != std::string::npos);
}

TEST_CASE("Learned file: update and forget under a lock, atomically", "[recommend]") {
  TempDir t;
  std::string file = t.path + "/state/edashim/learned.toml";
  learn::Learned a;
  a.tool = "yosys";
  a.cpu = "C";
  a.arm = "mimalloc";
  learn::Learned b = a;
  b.tool = "vpr";
  REQUIRE(learn::update_learned(file, [&](std::vector<learn::Learned>& e) { e = {a, b}; return true; }).ok());
  struct stat st;
  REQUIRE(::stat(file.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  REQUIRE(learn::update_learned(
      file, [&](std::vector<learn::Learned>& e) { CHECK(e.size() == 2); e.erase(e.begin()); return true; }).ok());
  auto left = learn::parse_learned(*util::read_file(file), file);
  REQUIRE(left.ok());
  REQUIRE(left->size() == 1);
  CHECK((*left)[0].tool == "vpr");
  // A broken file stops an update, but forgetting everything starts it over.
  t.write("state/edashim/learned.toml", "[[choice]\n");
  auto broken = learn::update_learned(file, [](std::vector<learn::Learned>&) { return true; });
  REQUIRE_FALSE(broken.ok());
  CHECK(broken.error().find("learned.toml:1") != std::string::npos);
  CHECK(learn::update_learned(file, [](std::vector<learn::Learned>& e) { return !e.empty(); }, true).ok());
  auto empty = learn::parse_learned(*util::read_file(file), file);
  REQUIRE(empty.ok());
  CHECK(empty->empty());
}

TEST_CASE("Learned layer: used with adopt on, for this tool, CPU model and unchanged binary only", "[recommend]") {
  TempDir t;
  std::string tool = t.write("bin/yosys", "binary");
  auto id = learn::identity_of(tool);
  REQUIRE(id);
  learn::Learned l;
  l.tool = "yosys";
  l.cpu = "CPU X";
  l.arm = "mimalloc[eager_commit_delay=4]";
  l.replaces = "jemalloc";
  l.binary = *id;
  l.runs = 48;
  std::string learned = t.write("state/learned.toml", learn::render_learned({l}));
  auto req = request_in(t);
  // The run's reader of learned.toml (pipeline/learned_layer.cpp), for `tool` on CPU model `cpu`.
  auto learned_for = [&](const std::string& tool, const std::string& cpu) {
    req.tool = tool;
    req.learned_file = learned;
    req.read_learned = pipeline::learned_reader(learned, tool, cpu, nullptr);
  };
  learned_for("yosys", "CPU X");
  t.write("user/config.toml", "allocator = \"jemalloc\"\n");

  // adopt off (the default): nothing learned applies.
  auto off = config::load(req);
  CHECK(off.settings.allocator.value == "jemalloc");
  CHECK_FALSE(off.learned);

  t.write("user/config.toml", "allocator = \"jemalloc\"\nadopt = true\n");
  auto on = config::load(req);
  CHECK(on.settings.allocator.value == "mimalloc");
  CHECK(on.settings.allocator.origin.file == learned);
  CHECK(std::get<int64_t>(on.settings.options["mimalloc"]["eager_commit_delay"].value) == 4);
  REQUIRE(on.learned);
  CHECK(on.learned->applied);

  // Undone when the run's tool is another binary: what the user's file said comes back.
  config::drop_learned(on, "another yosys");
  CHECK(on.settings.allocator.value == "jemalloc");
  CHECK_FALSE(on.settings.options["mimalloc"].count("eager_commit_delay"));
  CHECK(on.learned->note == "ignored: another yosys");

  // A project file ranks above the learned choice.
  t.write("proj/.edashim.toml", "allocator = \"tcmalloc\"\n");
  CHECK(config::load(req).settings.allocator.value == "tcmalloc");
  // An untrusted project cannot turn adopt on (nor off).
  t.write("proj/.edashim.toml", "adopt = false\n");
  auto untrusted = config::load(req);
  CHECK(untrusted.settings.allocator.value == "mimalloc");
  CHECK(untrusted.settings.adopt.value);
  ::unlink((t.path + "/proj/.edashim.toml").c_str());

  // Another CPU model, another tool: not this one's.
  learned_for("yosys", "CPU Y");
  CHECK(config::load(req).settings.allocator.value == "jemalloc");
  learned_for("vpr", "CPU X");
  CHECK_FALSE(config::load(req).learned);
  learned_for("yosys", "CPU X");

  // The binary changed: ignored, and said why.
  t.write("bin/yosys", "a newer binary");
  auto changed = config::load(req);
  CHECK(changed.settings.allocator.value == "jemalloc");
  REQUIRE(changed.learned);
  CHECK_FALSE(changed.learned->applied);
  CHECK(changed.learned->note.find("changed since it was learned") != std::string::npos);
}

TEST_CASE("Learned layer: learned.toml is read only with adopt on, and a broken file or arm is said, not used", "[recommend]") {
  TempDir t;
  auto req = request_in(t);
  int reads = 0;
  req.learned_file = t.path + "/state/learned.toml";
  req.read_learned = [&] { return ++reads, config::LearnedRead(std::nullopt); };
  t.write("user/config.toml", "allocator = \"jemalloc\"\n");
  (void)config::load(req);
  CHECK(reads == 0);  // docs/learning.md: with adopt off a run never reads it
  t.write("user/config.toml", "adopt = true\n");
  CHECK_FALSE(config::load(req).learned);
  CHECK(reads == 1);

  // Not there yet: nothing learned, nothing said.
  auto none = pipeline::read_learned_choice(req.learned_file, "yosys", "CPU X", nullptr);
  REQUIRE(none);
  CHECK_FALSE(*none);

  std::string file = t.write("state/learned.toml", "[[choice]\n");
  auto broken = pipeline::read_learned_choice(file, "yosys", "CPU X", nullptr);
  REQUIRE_FALSE(broken);
  CHECK(broken.error().find(file + ":1") == 0);
  req.read_learned = pipeline::learned_reader(file, "yosys", "CPU X", nullptr);
  auto loaded = config::load(req);
  CHECK(mentions(loaded, "(no learned choice is used; edashim forget rewrites it)"));
  CHECK_FALSE(loaded.has_errors());  // a warning: the run goes on without it
  CHECK_FALSE(loaded.learned);

  // An arm no config file could set: listed with why, not applied.
  std::string tool = t.write("bin/yosys", "binary");
  learn::Learned l;
  l.tool = "yosys";
  l.cpu = "CPU X";
  l.arm = "nosuchmalloc";
  l.binary = *learn::identity_of(tool);
  t.write("state/learned.toml", learn::render_learned({l}));
  auto odd = pipeline::read_learned_choice(file, "yosys", "CPU X", nullptr);
  REQUIRE(odd);
  REQUIRE(*odd);
  CHECK((*odd)->unusable.find("ignored: 'nosuchmalloc'") == 0);
  loaded = config::load(req);
  REQUIRE(loaded.learned);
  CHECK_FALSE(loaded.learned->applied);
  CHECK(loaded.settings.allocator.value == "system");
}

TEST_CASE("Log line: the learning fields and a bench's outputs record are read", "[recommend]") {
  runlog::RunRecord r;
  REQUIRE(runlog::parse_run_line(
      R"({"tool":"yosys","path":"/usr/bin/yosys","host":"node-7","machine":{"cpu":"AMD EPYC 7B13","kernel":"6.1","cores":2},)"
      R"("signature":"0123456789abcdef","signature_text":"yosys -s <script:ab12>","arm":"mimalloc[eager_commit_delay=4]",)"
      R"("explore":{"ran":"mimalloc","instead_of":"jemalloc"},"exit_code":0,"signal":null,"status":0,"wall_s":1.5})",
      r));
  CHECK(r.has_machine);
  CHECK(r.cpu == "AMD EPYC 7B13");
  CHECK(r.host == "node-7");
  CHECK(r.path == "/usr/bin/yosys");
  CHECK(r.signature == "0123456789abcdef");
  CHECK(r.arm == "mimalloc[eager_commit_delay=4]");
  CHECK(r.explored);
  CHECK(r.record.empty());
  REQUIRE(runlog::parse_run_line(R"({"tool":"yosys","machine":{"cpu":null},"explore":null,"exit_code":0})", r));
  CHECK(r.has_machine);
  CHECK(r.cpu.empty());
  CHECK_FALSE(r.explored);
  CHECK(r.arm.empty());
  // An older line: none of them.
  REQUIRE(runlog::parse_run_line(R"({"tool":"yosys","exit_code":0})", r));
  CHECK_FALSE(r.has_machine);
  CHECK(r.host.empty());
  REQUIRE(runlog::parse_run_line(
      R"({"v":1,"record":"bench_outputs","tool":"yosys","identical_arms":["system","mimalloc"],"differing_arms":[]})", r));
  CHECK(r.record == "bench_outputs");
  CHECK(r.identical_arms == std::vector<std::string>{"system", "mimalloc"});
  CHECK(r.differing_arms.empty());
}

TEST_CASE("Bench record: allocators whose outputs matched the reference, and those that did not", "[recommend]") {
  bench::BenchResult outcome;
  auto run = [&](int arm, const std::string& allocator, bool ok) {
    bench::ArmRun r;
    r.arm = arm;
    r.ok = ok;
    r.record.allocator_requested = allocator;
    outcome.runs.push_back(r);
  };
  run(0, "system", true);
  run(1, "jemalloc", true);
  run(2, "tcmalloc", true);
  run(3, "mimalloc", false);  // no successful run: neither list
  std::vector<bench::ArmStats> arms(4);
  for (auto& a : arms) a.ok = 1;
  arms[3].ok = 0;
  bench::OutputVerdict same, differs, varies;
  same.kind = differs.kind = bench::OutputVerdict::identical;
  same.same_as_first = true;
  differs.same_as_first = false;
  varies.kind = bench::OutputVerdict::varies;
  arms[0].outputs = {{"net.v", bench::OutputVerdict{}}};
  arms[0].outputs["net.v"].kind = bench::OutputVerdict::identical;
  arms[1].outputs = {{"net.v", same}};
  arms[2].outputs = {{"net.v", differs}};
  arms[3].outputs = {{"net.v", same}};
  auto by = bench::outputs_by_allocator(outcome, arms);
  CHECK(by.identical == std::vector<std::string>{"system", "jemalloc"});
  CHECK(by.differing == std::vector<std::string>{"tcmalloc"});
  // A reference whose own output varies between runs confirms nothing.
  arms[0].outputs["net.v"] = varies;
  by = bench::outputs_by_allocator(outcome, arms);
  CHECK(std::find(by.identical.begin(), by.identical.end(), "system") == by.identical.end());
  // The line report --recommend reads back.
  runlog::RunRecord r;
  REQUIRE(runlog::parse_run_line(bench::outputs_record_line("yosys", "/usr/bin/yosys", "CPU X", 5, {{"jemalloc"}, {"tcmalloc"}}), r));
  CHECK(r.record == "bench_outputs");
  CHECK(r.tool == "yosys");
  CHECK(r.cpu == "CPU X");
  CHECK(r.identical_arms == std::vector<std::string>{"jemalloc"});
  CHECK(r.differing_arms == std::vector<std::string>{"tcmalloc"});
}

// Issue 24: a log is data another program (or user) wrote; what recommend takes from it is
// checked as a config file's values are, and what it writes is rendered by toml++.
TEST_CASE("Arms from a log: a known allocator with options a config file could set, or nothing", "[recommend][issue24]") {
  CHECK(learn::arm_problem("jemalloc") == "");
  CHECK(learn::arm_problem("system") == "");
  CHECK(learn::arm_problem("mimalloc[eager_commit_delay=4,purge_delay=0]") == "");
  CHECK(learn::arm_problem("system[mmap_threshold=48]") == "");
  CHECK(learn::arm_problem("jemalloc[dirty_decay_ms=-1,percpu_arena=percpu]") == "");
  // The arm that once wrote `path = "..."` into a victim's config.
  CHECK(learn::arm_problem("jemalloc\"\npath = \"/home/mallory/evil.sh").find("is not a known allocator") == 0);
  CHECK(learn::arm_problem("libevil.so").find("is not a known allocator (known: system, mimalloc") == 0);
  CHECK(learn::arm_problem("").find("is not a known allocator") == 0);
  CHECK(learn::arm_problem("glibc") != "");  // an options family, not an allocator
  // Restricted options: only the user's own file may set them.
  CHECK(learn::arm_problem("jemalloc[prof_prefix=/tmp/x]").find("sets prof_prefix, which writes heap profiles") == 0);
  CHECK(learn::arm_problem("jemalloc[prof_prefix=x]").find("sets prof_prefix") == 0);
  CHECK(learn::arm_problem("tcmalloc[heap_limit_mb=1]").find("sets heap_limit_mb, which makes allocations fail") == 0);
  CHECK(learn::arm_problem("mimalloc[limit_os_alloc=1]") != "");
  // Values that fit no grammar, names that are not names, twice the same option.
  CHECK(learn::arm_problem("jemalloc[percpu_arena=anywhere]").find("has [jemalloc] percpu_arena") == 0);
  CHECK(learn::arm_problem("jemalloc[narenas=a\"b]") != "");
  CHECK(learn::arm_problem("jemalloc[narenas=4\n]") != "");
  CHECK(learn::arm_problem("jemalloc[nar-enas=4]") != "");
  CHECK(learn::arm_problem("jemalloc[narenas=4,NARENAS=5]") == "sets NARENAS twice");
  CHECK(learn::arm_problem("jemalloc[narenas=4]]") != "");
  CHECK(learn::arm_problem("mimalloc[" + std::string(300, 'a') + "=1]") != "");

  CHECK(learn::is_tool_name("yosys"));
  CHECK(learn::is_tool_name("nextpnr-ice40"));
  CHECK(learn::is_tool_name("python3.11"));
  CHECK_FALSE(learn::is_tool_name(""));
  CHECK_FALSE(learn::is_tool_name(".."));
  CHECK_FALSE(learn::is_tool_name("../yosys"));
  CHECK_FALSE(learn::is_tool_name("yosys\"]\npath = \"x"));
  CHECK_FALSE(learn::is_tool_name("yo\x1b[2Jsys"));
  CHECK_FALSE(learn::is_tool_name("yo\xffsys"));
  CHECK_FALSE(learn::is_tool_name(std::string(129, 'y')));

  // Nothing to adopt from an arm or a tool that does not pass.
  CHECK(learn::adopt_settings("yosys", "jemalloc\"\npath = \"/x").empty());
  CHECK(learn::adopt_settings("yosys", "jemalloc[prof_prefix=x]").empty());
  CHECK(learn::adopt_settings("yo\"sys", "jemalloc").empty());
  CHECK(learn::adopt_toml("yosys", "tcmalloc[heap_limit_mb=1]") == "");
}

TEST_CASE("Recommend --write: what is written is rendered, and checked as parsed data", "[recommend][issue24]") {
  // Whatever a value holds, the rendered file parses back to exactly the settings.
  std::vector<learn::KeySetting> odd{{{"tool", "yosys"}, "allocator", std::string("jemalloc\"\npath = \"/home/m/evil.sh")},
                                     {{"tool", "yo sys"}, "allocator", std::string("a\x1b[2J'''\"\"\"")}};
  std::string text = learn::render_settings(odd);
  CHECK(text.find("\npath") == std::string::npos);
  CHECK(learn::check_merge("", text, "c.toml", odd) == "");
  CHECK(learn::check_merge("# mine\nprobe = false\n", "# mine\nprobe = false\n" + text, "c.toml", odd) == "");

  auto jemalloc = learn::adopt_settings("yosys", "jemalloc");
  REQUIRE(jemalloc.size() == 1);
  const std::string mine = "probe = false\n[tool.yosys]\nscratch = true\n";
  const std::string good = "probe = false\n[tool.yosys]\nallocator = \"jemalloc\"\nscratch = true\n";
  CHECK(learn::check_merge(mine, good, "c.toml", jemalloc) == "");
  // One key more, a key changed, a key lost, a key missing: each refused.
  CHECK(learn::check_merge(mine, good + "path = \"/evil.sh\"\n", "c.toml", jemalloc).find("differ") != std::string::npos);
  CHECK(learn::check_merge(mine, "probe = true\n[tool.yosys]\nallocator = \"jemalloc\"\nscratch = true\n", "c.toml", jemalloc) != "");
  CHECK(learn::check_merge(mine, "[tool.yosys]\nallocator = \"jemalloc\"\nscratch = true\n", "c.toml", jemalloc) != "");
  CHECK(learn::check_merge(mine, mine, "c.toml", jemalloc) != "");
  CHECK(learn::check_merge(mine, good + "[", "c.toml", jemalloc).find("would not be read") != std::string::npos);

  // Every key written is compared with what the file has, not only the allocator.
  auto with_options = learn::adopt_settings("yosys", "mimalloc[eager_commit_delay=4]");
  REQUIRE(with_options.size() == 2);
  auto other = learn::merge_settings("[tool.yosys]\nallocator = \"mimalloc\"\n[tool.yosys.mimalloc]\neager_commit_delay = 8\n",
                                     "c.toml", with_options, "added");
  CHECK(other.refused.find("c.toml:4: [tool.yosys.mimalloc] already sets eager_commit_delay to something else") == 0);
  CHECK(other.refused.find("set eager_commit_delay = 4 there yourself") != std::string::npos);
  auto same = learn::merge_settings("[tool.yosys]\nallocator = \"mimalloc\"\n[tool.yosys.mimalloc]\neager_commit_delay = 4\n",
                                    "c.toml", with_options, "added");
  CHECK(same.unchanged);
  // A table name that is not a table in the file: refused, not overwritten.
  auto array = learn::merge_settings("[[tool]]\nname = \"x\"\n", "c.toml", jemalloc, "added");
  CHECK(array.refused.find("c.toml: tool.yosys is not a table there") == 0);
  // The comment cannot start a line of its own.
  auto fresh = learn::merge_settings(std::nullopt, "c.toml", jemalloc, "added: yosys\npath = \"x\"");
  CHECK(fresh.refused.empty());
  CHECK(fresh.text.find("\npath") == std::string::npos);
  CHECK(learn::check_merge("", fresh.text, "c.toml", jemalloc) == "");
}

// The key is placed by a text search for the header line, which a multi-line string can hold
// too; only the check of the parsed result sees that the string would change.
TEST_CASE("Recommend --write: a header line inside a multi-line string is not written into", "[recommend]") {
  auto jemalloc = learn::adopt_settings("yosys", "jemalloc");
  for (std::string quote : {"\"\"\"", "'''"}) {
    const std::string mine = "notes = " + quote + "\n[tool.yosys]\n" + quote + "\n\n[tool.yosys]\nscratch = true\n";
    INFO(mine);
    auto edit = learn::merge_settings(mine, "c.toml", jemalloc, "added");
    CHECK(edit.refused.find("c.toml: the merged file would differ from yours") == 0);
    CHECK(edit.refused.find("nothing written") != std::string::npos);
    CHECK(edit.text.empty());
    CHECK_FALSE(edit.unchanged);
  }
}

TEST_CASE("TOML nesting guard: a key of many parts or deep brackets is refused before toml++ sees it", "[recommend][issue24]") {
  CHECK(util::toml_nesting_problem("[tool.yosys.mimalloc]\na = 1.5\nb = [[1, 2], {c.d = 3}]\n", 16) == "");
  // Dots and brackets inside strings and comments do not count.
  CHECK(util::toml_nesting_problem("a = \"" + std::string(100, '.') + "[[[[\"\n# ....................\n"
                                    "b = '''\n" + std::string(100, '.') + "\n'''\nc = \"\"\"x\\\"\"\"" + std::string(40, '.') + "\"\"\"\n", 16) == "");
  std::string dotted = "a";
  for (int i = 0; i < 300000; ++i) dotted += ".a";
  CHECK(util::toml_nesting_problem("ok = 1\n" + dotted + " = 1\n", 16) == "line 2: a key of more than 16 dotted parts");
  CHECK(util::toml_nesting_problem("x = " + std::string(100, '[') + std::string(100, ']') + "\n", 16) ==
        "line 1: nested more than 16 levels deep");
  CHECK(util::toml_nesting_problem("x = " + std::string(17, '{'), 16) != "");
  // A backslash at a line's end in a multi-line basic string continues the string: the dots on
  // the next line are the string's, and the line after still counts (the user's config and
  // learned.toml once disagreed here).
  auto continued = util::toml_too_deep("a = \"\"\"x \\\n" + std::string(40, '.') + "\n\"\"\"\n" + dotted + " = 1\n", 16);
  REQUIRE(continued);
  CHECK(continued->line == 4);

  // learned.toml: refused with the file and line, no crash (the 300000-part key once made every run exit 139).
  auto dotted_key = learn::parse_learned(dotted + " = 1\n", "learned.toml");
  REQUIRE_FALSE(dotted_key.ok());
  CHECK(dotted_key.error() == "learned.toml:1: a key of more than 16 dotted parts (edashim never writes one)");
  auto nested = learn::parse_learned("x = " + std::string(200000, '['), "learned.toml");
  REQUIRE_FALSE(nested.ok());
  CHECK(nested.error().find("learned.toml:1: nested more than 16 levels deep") == 0);
  // merge_settings guards the user's file the same way.
  auto deep = learn::merge_settings(dotted + " = 1\n", "c.toml", learn::adopt_settings("yosys", "jemalloc"), "added");
  CHECK(deep.refused.find("c.toml:1: a key of more than 64 dotted parts") == 0);
}

TEST_CASE("Learned file: one runs would refuse is never read back and rewritten as the user's own", "[recommend][issue24]") {
  TempDir t;
  std::string file = t.write("state/edashim/learned.toml", "[[choice]]\ntool = \"yosys\"\n");
  ::chmod(file.c_str(), 0666);  // anyone could have written it
  bool changed = false;
  auto refused = learn::update_learned(file, [&](std::vector<learn::Learned>&) { return changed = true; }, true);
  REQUIRE_FALSE(refused.ok());
  CHECK_FALSE(changed);
  CHECK(refused.error().find(file) != std::string::npos);
  CHECK(*util::read_file(file) == "[[choice]]\ntool = \"yosys\"\n");
}

// Issue 27 (tests/mutants: recommend-bench-differing-ignored): a bench record that names an
// allocator among both the identical and the differing (a log edashim did not write: its own
// records never do) confirms nothing.
TEST_CASE("Bench record: an allocator named both identical and differing is not confirmed", "[recommend]") {
  std::vector<learn::BenchRecord> benches{{"yosys", 10, {"system", "mimalloc"}, {"mimalloc"}}};
  CHECK_FALSE(learn::bench_confirms(benches, "yosys", "mimalloc"));
  CHECK(learn::bench_confirms(benches, "yosys", "system"));
}

// Issue 27 (tests/mutants: outputs-record-differing-also-identical): two arms of one allocator
// (options differ) where one changed the outputs: the allocator is differing only, whatever
// order the arms ran in, so no bench confirms it.
TEST_CASE("Bench record: an allocator one of whose arms changed the outputs is differing only", "[recommend]") {
  for (bool differing_first : {false, true}) {
    bench::BenchResult outcome;
    for (int arm = 0; arm < 3; ++arm) {
      bench::ArmRun r;
      r.arm = arm;
      r.ok = true;
      r.record.allocator_requested = arm == 0 ? "system" : "mimalloc";
      outcome.runs.push_back(r);
    }
    std::vector<bench::ArmStats> arms(3);
    for (auto& a : arms) a.ok = 1;
    bench::OutputVerdict reference, same, differs;
    reference.kind = same.kind = differs.kind = bench::OutputVerdict::identical;
    same.same_as_first = true;
    differs.same_as_first = false;
    arms[0].outputs = {{"net.v", reference}};
    arms[1].outputs = {{"net.v", differing_first ? differs : same}};
    arms[2].outputs = {{"net.v", differing_first ? same : differs}};
    auto by = bench::outputs_by_allocator(outcome, arms);
    CHECK(by.identical == std::vector<std::string>{"system"});
    CHECK(by.differing == std::vector<std::string>{"mimalloc"});
  }
}
