// The line the probe's finish writes in the tool's own process (probe/line_end.c), held to the
// one edashim-finish writes (pipeline/finish.cpp) from the same record, figures and probe
// records: the same JSON, or the C side leaves the case to edashim-finish.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "alloc/allocators.hpp"
#include "pipeline/run_line.hpp"
#include "pipeline/unfinished.hpp"
#include "probe/line_end.h"
#include "run/exit_notice.hpp"
#include "runlog/write.hpp"
#include "util/json_writer.hpp"

namespace {

const char* const kJemalloc = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";
const char* const kLibc = "/lib/x86_64-linux-gnu/libc.so.6";

pipeline::Unfinished sample() {
  pipeline::Unfinished u;
  u.pid = 4242;
  u.start_ns = 5'000'000'000;
  u.own = {1500, 700, 10, 20, 9000};
  util::JsonWriter j;
  j.begin_object().field("version", 1).field("tool", "yosys").field("argv", std::vector<std::string>{"yosys", "-V"});
  u.line = j.str();
  u.log = "/home/u/.local/state/edashim/runs.jsonl";
  u.log_dev = 2049;
  u.log_ino = 77;
  u.limits = {1 << 20, 2};
  u.probe_file = "/tmp/edashim-0/edashim-0-1-abc/probe";
  u.verify.probed = true;
  u.verify.allocator_to_find = "jemalloc";
  u.verify.launcher = "/opt/e/lib/edashim/edashim";
  u.sweep_bases = {"/dev/shm/edashim-0", "/tmp/edashim-0"};
  return u;
}

edh_figures figures(int code = 0) {
  return edh_figures{code << 8, 250'000, 31'000, 1'200'000, 4'000, 12'000, 48'000, 15'000, 5'734'250'000};
}

std::string cpp_line(const pipeline::Unfinished& u, const edh_figures& f, int scratch, const std::string& probe) {
  run::ExitNotice n;
  n.wait_status = f.wait_status;
  n.utime_us = f.utime_us;
  n.stime_us = f.stime_us;
  n.cutime_us = f.cutime_us;
  n.cstime_us = f.cstime_us;
  n.maxrss_kb = f.maxrss_kb;
  n.cmaxrss_kb = f.cmaxrss_kb;
  n.hwm_kb = f.hwm_kb;
  n.end_ns = f.end_ns;
  std::optional<bool> left;
  if (scratch >= 0) left = scratch == 1;
  auto j = util::JsonWriter::continuing_object(u.line);
  runlog::write_end(j, pipeline::end_fields_in_place(u.verify, run::ending_from_notice(n, u.own, u.start_ns), left, probe));
  return j.str();
}

// The C line, or "" when it leaves the case to edashim-finish.
std::string c_line(const pipeline::Unfinished& u, const edh_figures& f, int scratch, std::string probe,
                   size_t max_processes = 64, size_t cap = 1 << 20) {
  std::string text = pipeline::unfinished_text(u);
  edh_record r;
  if (!edh_parse_record(text.data(), text.size(), &r)) return "";
  std::vector<edh_process> ps(max_processes + 1);
  std::string out(cap, '\0');
  size_t n = edh_line(&r, &f, scratch, probe.data(), probe.size(), ps.data(), max_processes, out.data(), cap);
  return out.substr(0, n);
}

void same_line(const pipeline::Unfinished& u, const edh_figures& f, int scratch, const std::string& probe) {
  std::string c = c_line(u, f, scratch, probe);
  INFO("probe records: " << probe);
  REQUIRE(!c.empty());
  REQUIRE(nlohmann::json::parse(c) == nlohmann::json::parse(cpp_line(u, f, scratch, probe)));
}

std::string start(long pid, long ppid, const std::string& exe, const std::string& object, char type = 'S') {
  return std::string(1, type) + "\t" + std::to_string(pid) + "\t" + std::to_string(ppid) + "\t" + exe + "\t" + object + "\n";
}

std::string exit_record(long pid, long hwm, long peak) {
  return "E\t" + std::to_string(pid) + "\t" + std::to_string(hwm) + "\t" + std::to_string(peak) + "\n";
}

}  // namespace

TEST_CASE("line_end: the tool's process writes the line edashim-finish would", "[line_end]") {
  auto u = sample();
  std::string one = start(100, 1, "/usr/bin/yosys", kJemalloc) + exit_record(100, 15000, 90000);
  SECTION("one process, verified") {
    same_line(u, figures(), -1, one);
    auto line = nlohmann::json::parse(c_line(u, figures(), -1, one));
    CHECK(line["allocator_verified"] == true);
    CHECK(line["exit_code"] == 0);
    CHECK(line["wall_s"] == 0.73425);
    CHECK(line["tool"] == "yosys");
  }
  SECTION("each exit code and each state of the scratch") {
    for (int code : {0, 1, 2, 126, 255})
      for (int scratch : {-1, 0, 1}) same_line(u, figures(code), scratch, one);
  }
  SECTION("an exec chain, a fork that never exec'd, ABC's child") {
    std::string text = start(100, 1, "/bin/sh", kLibc) + start(100, 1, "/usr/bin/yosys", kJemalloc) +
                       start(101, 100, "/usr/bin/yosys", kJemalloc, 'F') + exit_record(101, -1, -1) +
                       start(102, 100, "/usr/bin/yosys-abc", kJemalloc) + exit_record(102, 4000, 7000) +
                       exit_record(100, 15000, 90000);
    same_line(u, figures(), 0, text);
    CHECK(nlohmann::json::parse(c_line(u, figures(), 0, text))["allocator_verified"] == false);  // sh had libc
  }
  SECTION("what served malloc: the executable, glibc, a foreign allocator, anything else") {
    for (const char* object : {"/usr/bin/yosys", kLibc, "/lib/libc-2.28.so", "/opt/lib/libhoard.so", "/opt/libfoo.so.1",
                               "/usr/lib/libtcmalloc_minimal.so.4", "/usr/lib/libmimalloc.so.2"})
      same_line(u, figures(), -1, start(100, 1, "/usr/bin/yosys", object) + exit_record(100, 1, 2));
  }
  SECTION("the system allocator, and edashim's own records left out") {
    u.verify.allocator_to_find = "system";
    same_line(u, figures(), -1, start(99, 1, u.verify.launcher, kLibc) + start(100, 1, "/usr/bin/yosys", kLibc));
  }
  SECTION("damaged or foreign lines are skipped alike") {
    std::string text = "S\t1x\t1\t/a\t/b\n" + std::string("X\tnothing\n") + "E\t999\t1\t2\n" + "S\t5\t1\t/a\\q\t/b\n" +
                       "\n" + "SS\t1\t1\t/a\t/b\n" + "S\t7\t1\t/a\n" + one + "E\t100\t3\t4\n" + "E\t100\tx\t4\n";
    same_line(u, figures(), -1, text);
  }
  SECTION("the probe off: its note, no records") {
    u.verify.probed = false;
    u.verify.unprobed_note = "probe off (probe = false, /home/u/.config/edashim/config.toml:3)";
    u.probe_file = "";
    same_line(u, figures(), 0, "");
    u.verify.unprobed_note = "probe off (probe = false, /home/jos\u00e9/config.toml:3)";
    CHECK(c_line(u, figures(), 0, "").empty());  // not plain ASCII: edashim-finish's
  }
  SECTION("figures less edashim's part, and those nobody could know") {
    auto f = figures();
    f.end_ns = u.start_ns;  // no wall time
    f.utime_us = 10;        // less than edashim's own use: 0, not negative
    f.cutime_us = 0;
    f.hwm_kb = -1;
    f.cmaxrss_kb = 0;
    f.maxrss_kb = 9000;  // edashim's own peak: not the tool's
    same_line(u, f, -1, one);
    f.maxrss_kb = 9001;
    same_line(u, f, -1, one);
    f.maxrss_kb = 0;
    same_line(u, f, -1, one);
  }
}

TEST_CASE("line_end: what it leaves to edashim-finish", "[line_end]") {
  auto u = sample();
  std::string one = start(100, 1, "/usr/bin/yosys", kJemalloc) + exit_record(100, 15000, 90000);
  REQUIRE(!c_line(u, figures(), -1, one).empty());
  SECTION("a process the exec hook left without the allocator") {
    CHECK(c_line(u, figures(), -1, one + "L\t100\t/bin/musl\t/lib/ld-musl.so\tGLIBC_2.34\t\n").empty());
  }
  SECTION("no process recorded, or edashim's own only") {
    CHECK(c_line(u, figures(), -1, "").empty());
    CHECK(c_line(u, figures(), -1, start(99, 1, u.verify.launcher, kLibc)).empty());
  }
  SECTION("names that need escapes or are not ASCII") {
    CHECK(c_line(u, figures(), -1, start(100, 1, "/usr/bin/yo\\tsys", kJemalloc)).empty());
    CHECK(c_line(u, figures(), -1, start(100, 1, "/usr/bin/yo\"sys", kJemalloc)).empty());
    CHECK(c_line(u, figures(), -1, start(100, 1, "/usr/bin/yösys", kJemalloc)).empty());
  }
  SECTION("a NUL in the records, more processes than room, a line longer than room") {
    CHECK(c_line(u, figures(), -1, one + std::string(1, '\0') + "x").empty());
    CHECK(c_line(u, figures(), -1, one + start(101, 100, "/bin/a", kJemalloc), 1).empty());
    CHECK(c_line(u, figures(), -1, one, 64, u.line.size() + 40).empty());
  }
  SECTION("a flow's top, an allocator named by path, no log") {
    auto v = u;
    v.verify.flow_top = true;
    CHECK(c_line(v, figures(), -1, one).empty());
    v = u;
    v.verify.allocator_to_find = kJemalloc;
    CHECK(c_line(v, figures(), -1, one).empty());
    v = u;
    v.log = "";
    CHECK(c_line(v, figures(), -1, one).empty());
  }
}

TEST_CASE("line_end: the record as edashim writes it", "[line_end]") {
  auto u = sample();
  u.scratch = "/dev/shm/edashim-0/edashim-0-1-xyz";
  u.keep_scratch = true;
  u.sweep_bases.clear();
  for (int i = 0; i < 9; ++i) u.sweep_bases.push_back("/b" + std::to_string(i));
  std::string text = pipeline::unfinished_text(u);
  edh_record r;
  REQUIRE(edh_parse_record(text.data(), text.size(), &r) == 1);
  CHECK(r.start_ns == u.start_ns);
  CHECK(r.own[4] == 9000);
  CHECK(std::string(r.log) == u.log);
  CHECK(r.log_dev == 2049);
  CHECK(r.log_ino == 77);
  CHECK(r.log_max_bytes == 1 << 20);
  CHECK(std::string(r.scratch) == u.scratch);
  CHECK(r.keep_scratch == 1);
  CHECK(std::string(r.probe_file) == u.probe_file);
  CHECK(r.n_sweep_bases == EDH_MAX_SWEEP_BASES);
  CHECK(r.more_sweep_bases == 1);
  CHECK(std::string(r.line) == u.line);
  // The registry's prefixes, in allocator_of_library's order.
  auto prefixes = alloc::allocator_file_prefixes();
  REQUIRE(size_t(r.n_prefixes) == prefixes.size());
  for (size_t i = 0; i < prefixes.size(); ++i) CHECK(std::string(r.prefixes[i][1]) == prefixes[i].second);

  SECTION("another format, damage, a line that is not an object") {
    std::string old = text;
    old.replace(0, old.find('\n'), "edashim-unfinished 1");
    CHECK(edh_parse_record(old.data(), old.size(), &r) == 0);
    std::string damaged = text + "log\tbad\\q\n";
    CHECK(edh_parse_record(damaged.data(), damaged.size(), &r) == 0);
    std::string with_nul = text;
    with_nul[10] = '\0';
    CHECK(edh_parse_record(with_nul.data(), with_nul.size(), &r) == 0);
    auto v = u;
    v.line = "";
    v.log = "";
    std::string no_line = pipeline::unfinished_text(v);
    CHECK(edh_parse_record(no_line.data(), no_line.size(), &r) == 0);
  }
}
