// learn/: the key of "same work" (the command signature) and the exploration decision, pure.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "alloc/option_value.hpp"
#include "learn/explore.hpp"
#include "learn/signature.hpp"
#include <sys/stat.h>

#include "util/fact_cache.hpp"
#include "util/fs.hpp"
#include "util/machine.hpp"

namespace {

const std::vector<std::string> kTemp{"/tmp", "/var/tmp", "/dev/shm"};

// Files by path, for the reader.
learn::Signature sig(const std::string& tool, std::vector<std::string> argv, const std::map<std::string, std::string>& files = {},
                     std::vector<std::string> temp = kTemp) {
  argv.insert(argv.begin(), tool);
  return learn::signature({tool, argv, temp, [files](const std::string& p) -> std::optional<std::string> {
                             auto it = files.find(p);
                             if (it == files.end()) return std::nullopt;
                             return it->second;
                           }});
}

// The script yosys 0.23 wrote for `abc` in `synth; abc` (captured with -nocleanup; its
// temporary directory differs in every run).
std::string abc_script(const std::string& dir) {
  return "echo + read_blif \"" + dir + "/input.blif\";\nread_blif \"" + dir + "/input.blif\";\n"
         "echo + read_library " + dir + "/stdcells.genlib;\nread_library " + dir + "/stdcells.genlib;\n"
         "echo + strash;\nstrash;\necho + &get -n;\n&get -n;\necho + &fraig -x;\n&fraig -x;\n"
         "echo + write_blif " + dir + "/output.blif;\nwrite_blif " + dir + "/output.blif;\n";
}

}  // namespace

TEST_CASE("Signature: yosys -p with outputs and logs normalised, the design by name", "[learn][signature]") {
  // Real command lines (examples/ice40/Makefile, the e2e flow): the same synthesis run from
  // two checkouts, writing elsewhere, is the same work.
  auto a = sig("yosys", {"-q", "-l", "build/yosys.log", "-p", "synth_ice40 -top blinky -json build/blinky.json", "/home/a/src/blinky.v"});
  auto b = sig("yosys", {"-ql", "/tmp/run7/yosys.log", "-p", "synth_ice40 -top blinky -json build/blinky.json", "/work/ci/blinky.v"});
  CHECK(a.text == "yosys -q -l <out> -p 'synth_ice40 -top blinky -json build/blinky.json' blinky.v");
  CHECK(a.text == b.text);
  CHECK(a.hex == b.hex);
  CHECK(a.hex.size() == 16);
  // A different command string is a different flow.
  CHECK(sig("yosys", {"-p", "synth -top top; abc -g AND", "top.v"}).hex != sig("yosys", {"-p", "synth -top top", "top.v"}).hex);
  // -o out, -E deps: outputs.
  CHECK(sig("yosys", {"-p", "synth", "-o", "out/x.json", "-E", "x.d", "top.v"}).text == "yosys -p synth -o <out> -E <out> top.v");
}

TEST_CASE("Signature: yosys scripts (-s, -c, a .ys argument) enter by their contents", "[learn][signature]") {
  std::map<std::string, std::string> files{{"flow.ys", "read_verilog top.v\nsynth -top top\n"},
                                           {"/ci/x/flow.ys", "read_verilog top.v\nsynth -top top\n"},
                                           {"other.ys", "read_verilog top.v\nsynth -top top -flatten\n"},
                                           {"run.tcl", "yosys synth\n"}};
  auto a = sig("yosys", {"-s", "flow.ys"}, files);
  CHECK(a.text.rfind("yosys -s <script:", 0) == 0);
  CHECK(a.hex == sig("yosys", {"-s", "/ci/x/flow.ys"}, files).hex);  // same contents elsewhere
  CHECK(a.hex != sig("yosys", {"-s", "other.ys"}, files).hex);       // a changed script
  CHECK(sig("yosys", {"flow.ys"}, files).text == "yosys " + a.text.substr(9));
  CHECK(sig("yosys", {"-c", "run.tcl"}, files).text.rfind("yosys -c <script:", 0) == 0);
  CHECK(sig("yosys", {"-s", "missing.ys"}, files).text == "yosys -s <unreadable:missing.ys>");
  // The design's contents never enter: only its name.
  CHECK(sig("yosys", {"-s", "flow.ys", "top.v"}, files).text == a.text + " top.v");
}

TEST_CASE("Signature: the abc yosys runs, in a new temporary directory each time, is the same work", "[learn][signature]") {
  // Recorded with strace from Debian 12's yosys 0.23 running `synth; abc`:
  //   execve("/usr/bin/berkeley-abc", ["berkeley-abc", "-s", "-f", "/tmp/yosys-abc-lsfkkG/abc.script"])
  std::map<std::string, std::string> files{{"/tmp/yosys-abc-lsfkkG/abc.script", abc_script("/tmp/yosys-abc-lsfkkG")},
                                           {"/tmp/yosys-abc-YIyj6t/abc.script", abc_script("/tmp/yosys-abc-YIyj6t")},
                                           {"/scratch/yosys-abc-Ab3dE9/abc.script", abc_script("/scratch/yosys-abc-Ab3dE9")}};
  auto a = sig("berkeley-abc", {"-s", "-f", "/tmp/yosys-abc-lsfkkG/abc.script"}, files);
  auto b = sig("berkeley-abc", {"-s", "-f", "/tmp/yosys-abc-YIyj6t/abc.script"}, files);
  CHECK(a.text.rfind("berkeley-abc -s -f <script:", 0) == 0);
  CHECK(a.hex == b.hex);
  // Under a TMPDIR of the user's (or edashim's scratch), and named as mktemp names.
  CHECK(sig("berkeley-abc", {"-s", "-f", "/scratch/yosys-abc-Ab3dE9/abc.script"}, files, {"/tmp", "/scratch"}).hex == a.hex);
  // yosys-abc, -c command strings kept (temporary paths aside), -o output.
  CHECK(sig("yosys-abc", {"-c", "read /tmp/tmp.Xa3kQ9zL1c/x.blif; strash; dc2; print_stats", "-o", "y.blif"}).text ==
        "yosys-abc -c 'read <tmp>; strash; dc2; print_stats' -o <out>");
}

TEST_CASE("Signature: vpr ARCH CIRCUIT, the architecture by contents, stage files normalised", "[learn][signature]") {
  // A Makefile-driven VTR line (vtr_flow's run_vtr_flow, as bench/tools documents it).
  std::map<std::string, std::string> files{{"/opt/vtr/arch/k6_frac_N10_40nm.xml", "<architecture>k6</architecture>\n"},
                                           {"arch/k6_frac_N10_40nm.xml", "<architecture>k6</architecture>\n"},
                                           {"arch/k4_N4_90nm.xml", "<architecture>k4</architecture>\n"}};
  auto a = sig("vpr", {"/opt/vtr/arch/k6_frac_N10_40nm.xml", "build/bgm.pre-vpr.blif", "--route_chan_width", "100",
                       "--net_file", "build/bgm.net", "--place_file", "build/bgm.place", "--route_file=build/bgm.route",
                       "--out_file_prefix", "build/", "--seed", "3"},
               files);
  CHECK(a.text.rfind("vpr <script:", 0) == 0);
  CHECK(a.text.substr(29) ==
        " bgm.pre-vpr.blif --route_chan_width 100 --net_file <out> --place_file <out> --route_file=<out> --out_file_prefix <out> --seed 3");
  auto b = sig("vpr", {"arch/k6_frac_N10_40nm.xml", "/ci/bgm.pre-vpr.blif", "--route_chan_width", "100", "--net_file", "x.net",
                       "--place_file", "x.place", "--route_file=x.route", "--out_file_prefix", "/tmp/q/", "--seed", "3"},
               files);
  CHECK(a.hex == b.hex);
  CHECK(sig("vpr", {"arch/k4_N4_90nm.xml", "bgm.pre-vpr.blif", "--route_chan_width", "100"}, files).text !=
        sig("vpr", {"arch/k6_frac_N10_40nm.xml", "bgm.pre-vpr.blif", "--route_chan_width", "100"}, files).text);
  // bench/suite/run.sh's VPR line, from two checkouts: "$vpr_bin" "$arch" "$blif" --route_chan_width 100.
  files["/home/a/vtr/vtr_flow/arch/timing/k6_frac_N10_mem32K_40nm.xml"] = "<architecture>k6 mem32K</architecture>\n";
  files["/ci/vtr/vtr_flow/arch/timing/k6_frac_N10_mem32K_40nm.xml"] = "<architecture>k6 mem32K</architecture>\n";
  auto suite = sig("vpr", {"/home/a/vtr/vtr_flow/arch/timing/k6_frac_N10_mem32K_40nm.xml",
                           "/home/a/vtr/vtr_flow/benchmarks/blif/tseng.blif", "--route_chan_width", "100"}, files);
  CHECK(suite.text.substr(29) == " tseng.blif --route_chan_width 100");
  CHECK(suite.hex == sig("vpr", {"/ci/vtr/vtr_flow/arch/timing/k6_frac_N10_mem32K_40nm.xml",
                                 "/ci/vtr/vtr_flow/benchmarks/blif/tseng.blif", "--route_chan_width", "100"}, files).hex);
  // A different channel width is a different job.
  CHECK(sig("vpr", {"arch/k6_frac_N10_40nm.xml", "c.blif", "--route_chan_width", "80"}, files).hex !=
        sig("vpr", {"arch/k6_frac_N10_40nm.xml", "c.blif", "--route_chan_width", "100"}, files).hex);
}

TEST_CASE("Signature: solvers keep their options and name the problem file, nextpnr's outputs normalised", "[learn][signature]") {
  // yosys-smtbmc -s z3 starts `z3 -smt2 -in`; the Yices profiles' typical lines.
  CHECK(sig("z3", {"-smt2", "-in"}).text == "z3 -smt2 -in");
  CHECK(sig("yices-smt2", {"--incremental", "--timeout=60", "/home/u/proj/build/induction.smt2"}).text ==
        "yices-smt2 --incremental --timeout=60 induction.smt2");
  CHECK(sig("yices", {"--logic=QF_BV", "/tmp/tmpk3j_x8aq.ys"}).text == "yices --logic=QF_BV <tmp>");
  // bench/suite/run.sh's Yices lines: a regression instance by path, the BMC problem it dumped,
  // and yosys-smtbmc -s yices driving it over a pipe.
  CHECK(sig("yices-smt2", {"/home/u/yices2/tests/regress/coverage/smtlib/QF_BV/brummayerbiere/nlzbe128.smt2"}).text ==
        "yices-smt2 nlzbe128.smt2");
  CHECK(sig("yices-smt2", {"--incremental", "bmc.smt2"}).text == "yices-smt2 --incremental bmc.smt2");
  CHECK(sig("yices-smt2", {"--incremental"}).text == "yices-smt2 --incremental");
  CHECK(sig("yices-sat", {"-v", "1", "bench/uf250.cnf"}).text == "yices-sat -v 1 uf250.cnf");
  CHECK(sig("cvc5", {"--lang=smt2", "-o", "/out/model.txt", "p.smt2"}).text == "cvc5 --lang=smt2 -o <out> p.smt2");
  // examples/ice40/Makefile's place and route.
  auto a = sig("nextpnr-ice40", {"--hx1k", "--package", "tq144", "--json", "build/blinky.json", "--pcf", "blinky.pcf",
                                 "--asc", "build/blinky.asc", "--seed", "7"});
  CHECK(a.text == "nextpnr-ice40 --hx1k --package tq144 --json blinky.json --pcf blinky.pcf --asc <out> --seed 7");
  CHECK(sig("nextpnr-ice40", {"--hx1k", "--package", "tq144", "--json", "/ci/build/blinky.json", "--pcf", "/ci/blinky.pcf",
                              "--asc", "x.asc", "--seed", "7"}).hex == a.hex);
}

TEST_CASE("Signature: temporary names, by directory and by mktemp's look", "[learn][signature]") {
  CHECK(learn::is_temporary("/tmp/x/y.v", kTemp));
  CHECK(learn::is_temporary("/run/user/1000/edashim-q/x", {"/run/user/1000/edashim-q/"}));
  CHECK_FALSE(learn::is_temporary("/tmpfoo/x.v", kTemp));
  CHECK(learn::is_temporary("_tmp_yosys-abc-1JALw9/input.blif", {}));  // yosys abc -nocleanup
  // mkdtemp's tail need not hold an upper-case letter (e2e_learn failed on "pg2s34" once).
  CHECK(learn::is_temporary("_tmp_yosys-abc-pg2s34/input.blif", {}));
  CHECK(learn::is_temporary("yosys-abc-abcdef/abc.script", {}));
  CHECK(learn::is_temporary("tmp.Xa3kQ9zL1c", {}));                   // mktemp
  CHECK(learn::is_temporary("tmpk3j_x8aq.smt2", {}));                 // Python's tempfile
  CHECK_FALSE(learn::is_temporary("src/design_top.v", {}));
  CHECK_FALSE(learn::is_temporary("bcd_counter.smt2", {}));
  CHECK_FALSE(learn::is_temporary("k6_frac_N10_40nm.xml", {}));
  CHECK_FALSE(learn::is_temporary("build/blinky.json", {}));
  CHECK(learn::without_temporary_paths("read_blif \"/tmp/yosys-abc-lsfkkG/input.blif\"; write /home/x.blif", kTemp) ==
        "read_blif \"<tmp>\"; write /home/x.blif");
}

TEST_CASE("Explore: the draw has the share's probability, and the order is a uniform permutation", "[learn][explore]") {
  CHECK_FALSE(learn::draws_exploration(0, 0));
  CHECK(learn::draws_exploration(1, UINT64_MAX));
  CHECK(learn::draws_exploration(0.1, uint64_t(0.099 * 0x1p64)));
  CHECK_FALSE(learn::draws_exploration(0.1, uint64_t(0.101 * 0x1p64)));
  // Over a spread of inputs, the share drawn is the share asked for.
  int drawn = 0;
  for (uint64_t i = 0; i < 10000; ++i) drawn += learn::draws_exploration(0.25, i * (UINT64_MAX / 10000));
  CHECK(std::abs(drawn - 2500) <= 1);
  // Every candidate comes first about equally often; every order is a permutation.
  std::map<size_t, int> first;
  for (uint64_t r = 0; r < 40000; ++r) {
    auto order = learn::candidate_order(4, r);
    CHECK(std::set<size_t>(order.begin(), order.end()).size() == 4);
    ++first[order[0]];
  }
  for (const auto& [i, n] : first) CHECK(std::abs(n - 10000) < 400);  // ~4 sigma
  CHECK(learn::candidate_order(0, 5).empty());
}

TEST_CASE("Explore: the gate says why a run may not explore", "[learn][explore]") {
  learn::ExploreGate g;
  g.candidates = 2;
  CHECK(learn::why_not_explore(g) == "explore is off (explore = 0)");
  g.share = 0.1;
  CHECK(learn::why_not_explore(g).empty());
  g.switch_value = "0";
  CHECK(learn::why_not_explore(g) == "EDASHIM_EXPLORE=0 stops it for this command");
  g.switch_value = "on";
  CHECK(learn::why_not_explore(g).empty());
  g.explicit_choice = "--profile";
  CHECK(learn::why_not_explore(g).find("--profile") != std::string::npos);
  g.explicit_choice.clear();
  g.preflight_blocker = "static";
  CHECK(learn::why_not_explore(g).find("pre-flight") != std::string::npos);
  g.preflight_blocker.clear();
  g.logged = false;
  CHECK(learn::why_not_explore(g).find("the run log is off") != std::string::npos);
  CHECK(learn::arm_name("jemalloc", {{"dirty_decay_ms", "0"}, {"narenas", "2"}}) == "jemalloc[dirty_decay_ms=0,narenas=2]");
}

TEST_CASE("Machine: the CPU model as /proc/cpuinfo names it, remembered in the fact cache", "[learn][machine]") {
  CHECK(util::cpu_model_of_cpuinfo("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7763 64-Core Processor  \n") ==
        "AMD EPYC 7763 64-Core Processor");
  CHECK(util::cpu_model_of_cpuinfo("processor\t: 0\nBogoMIPS\t: 50.00\n\nHardware\t: BCM2835\n") == std::nullopt);
  CHECK(util::cpu_model_of_cpuinfo("cpu\t\t: POWER9 (raw), altivec supported\n") == "POWER9 (raw), altivec supported");
  auto text = util::read_file("/proc/cpuinfo", 1 << 20);
  REQUIRE(text);
  auto from_file = util::cpu_model_of_cpuinfo(*text);
  auto m = util::current_machine(nullptr);
  CHECK(m.cpu == from_file);
  CHECK(m.cores >= 1);
  CHECK_FALSE(m.kernel.empty());
  // Remembered by /proc/cpuinfo's identity: a second run reads the cache, not the file.
  util::FactCache cache("");
  CHECK(util::current_machine(&cache).cpu == from_file);
  struct stat st;
  REQUIRE(::stat("/proc/cpuinfo", &st) == 0);
  cache.put(util::FileStamp::of(st), {{"cpu_model", "Remembered CPU"}});
  CHECK(util::current_machine(&cache).cpu == "Remembered CPU");
}

TEST_CASE("Learned arm options: their text is read back as the value render_option wrote", "[learn][learned]") {
  for (const alloc::OptionValue& v : {alloc::OptionValue(true), alloc::OptionValue(false), alloc::OptionValue(int64_t(4)),
                                      alloc::OptionValue(int64_t(-1)), alloc::OptionValue(0.5), alloc::OptionValue(std::string("64M"))})
    CHECK(alloc::option_from_text(alloc::render_option(v, true)) == v);
  CHECK(alloc::option_from_text("") == alloc::OptionValue(std::string()));
}
