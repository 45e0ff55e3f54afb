// The finish of a run in place (pipeline/finish.hpp): the unfinished record kept in the run's
// private directory, the figures the tool's process hands over, and the line they make.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "pipeline/finish.hpp"
#include "pipeline/unfinished.hpp"
#include "run/exit_notice.hpp"
#include "run/probe_records.hpp"
#include "runlog/read.hpp"
#include "runlog/schema.hpp"
#include "temp_dir.hpp"
#include "util/fs.hpp"
#include "util/json_writer.hpp"
#include "util/strings.hpp"

namespace {

pipeline::Unfinished sample(const std::string& log) {
  pipeline::Unfinished u;
  u.pid = 4242;
  u.start_ns = 1'000'000'000;
  u.own = {1500, 700, 0, 0, 9000};
  util::JsonWriter j;
  j.begin_object().field(runlog::key::version, 1).field(runlog::key::tool, "yo\tsys\n\\x");
  u.line = j.str();
  u.log = log;
  u.limits = {1 << 20, 2};
  u.shared_dirs = {"/team/logs", "/a\tb"};
  u.scratch = "";
  u.probe_file = "";
  u.verify.probed = false;
  u.verify.unprobed_note = "probe off (probe = false, a:1)";
  u.verify.allocator_to_find = "jemalloc";
  u.sweep_bases = {"/dev/shm/edashim-0", "/tmp/edashim-0"};
  return u;
}

// A run's private directory `name` under `t`, holding `u`'s record.
std::string run_dir(const TempDir& t, const std::string& name, const pipeline::Unfinished& u) {
  std::string dir = t.path + "/" + name;
  REQUIRE(::mkdir(dir.c_str(), 0700) == 0);
  REQUIRE(util::write_new_file(dir + "/" + pipeline::kUnfinishedFile, pipeline::unfinished_text(u)).ok());
  return dir;
}

// finish_run in a child (it ends its process); the child's wait status.
int finish_in_child(const std::string& dir, int code, const char* notice) {
  pid_t pid = ::fork();
  if (pid == 0) pipeline::finish_run(dir, code, notice);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  return status;
}

}  // namespace

TEST_CASE("Unfinished: the record reads back as written, escapes and lists included", "[finish]") {
  auto u = sample("/home/u/runs.jsonl");
  auto back = pipeline::parse_unfinished(pipeline::unfinished_text(u));
  REQUIRE(back.ok());
  CHECK(back->pid == 4242);
  CHECK(back->start_ns == u.start_ns);
  CHECK(back->own.utime_us == 1500);
  CHECK(back->own.stime_us == 700);
  CHECK(back->own.maxrss_kb == 9000);
  CHECK(back->line == u.line);
  CHECK(back->log == u.log);
  CHECK(back->limits.max_bytes == u.limits.max_bytes);
  CHECK(back->limits.keep == 2);
  CHECK(back->shared_dirs == u.shared_dirs);
  CHECK(back->verify.unprobed_note == u.verify.unprobed_note);
  CHECK(back->verify.allocator_to_find == "jemalloc");
  CHECK(back->sweep_bases == u.sweep_bases);
}

TEST_CASE("Unfinished: another format, a damaged value or a missing start is refused, not guessed at", "[finish]") {
  auto text = pipeline::unfinished_text(sample("/l"));
  CHECK_FALSE(pipeline::parse_unfinished("edashim-unfinished 1\n" + text.substr(text.find('\n') + 1)).ok());
  CHECK_FALSE(pipeline::parse_unfinished(text + "mystery\tvalue\n").ok());
  CHECK_FALSE(pipeline::parse_unfinished(text + "log_keep\tmany\n").ok());
  auto no_line = text.substr(0, text.find("line\t"));
  CHECK_FALSE(pipeline::parse_unfinished(no_line).ok());
  std::string no_clock;
  for (const auto& line : util::split(text, '\n'))
    if (!line.empty() && line.rfind("start_ns\t", 0) != 0) no_clock += line + "\n";
  CHECK_FALSE(pipeline::parse_unfinished(no_clock).ok());
  // No log (EDASHIM_LOG=off with a scratch to remove): no line is needed.
  auto quiet = sample("");
  quiet.line.clear();
  CHECK(pipeline::parse_unfinished(pipeline::unfinished_text(quiet)).ok());
}

TEST_CASE("Exit notice: the tool's figures less edashim's own part, the wall time from edashim's clock", "[finish]") {
  auto n = run::parse_exit_notice("768 300000 40000 100000 5000 52000 7000 48000 3000000000\n");
  REQUIRE(n);
  auto e = run::ending_from_notice(*n, {100000, 20000, 0, 0, 9000}, 1'000'000'000);
  CHECK(e.wait_status == 768);
  CHECK(*e.wall_s == Approx(2.0));
  CHECK(*e.user_s == Approx(0.3));    // 0.3 + 0.1 children - 0.1 edashim's
  CHECK(*e.sys_s == Approx(0.025));   // 0.04 + 0.005 - 0.02
  CHECK(*e.max_rss_kb == 52000);      // ru_maxrss grew past edashim's own 9000
  // A peak no larger than edashim's own was edashim's: the last image's VmHWM is the tool's.
  auto small = run::ending_from_notice(*n, {0, 0, 0, 0, 60000}, 1'000'000'000);
  CHECK(*small.max_rss_kb == 48000);
  CHECK_FALSE(run::parse_exit_notice("768 1 2 3\n"));
  CHECK_FALSE(run::parse_exit_notice("768 -1 0 0 0 0 0 0 1\n"));
  CHECK(run::parse_exit_notice("0 1 1 1 1 1 1 -1 1\n"));  // VmHWM unknown: -1
}

TEST_CASE("finish_run: the line with the tool's figures, the directory gone, the tool's exit code", "[finish]") {
  TempDir t;
  auto u = sample(t.path + "/runs.jsonl");
  u.sweep_bases.clear();
  std::string dir = run_dir(t, "run", u);
  int status = finish_in_child(dir, 7, "1792 300000 40000 0 0 52000 0 48000 3000000000\n");
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 7);
  runlog::RunRecord rec;
  REQUIRE(runlog::parse_run_line(util::read_file(t.path + "/runs.jsonl", 1 << 20).value_or(""), rec));
  CHECK(rec.tool == "yo\tsys\n\\x");
  CHECK(rec.status == std::optional<long>(7));
  CHECK(rec.exit_code == std::optional<long>(7));
  CHECK(rec.wall_s == Approx(2.0));
  CHECK(rec.user_s == Approx(0.2985));
  CHECK(rec.ended.empty());
  CHECK_FALSE(util::is_directory(dir));
}

TEST_CASE("finish_run: a directory others may write is neither read nor removed, and the exit code stands", "[finish]") {
  TempDir t;
  auto u = sample(t.path + "/runs.jsonl");
  u.sweep_bases.clear();
  std::string dir = run_dir(t, "run", u);
  ::chmod(dir.c_str(), 0777);
  CHECK(WEXITSTATUS(finish_in_child(dir, 9, "2304 1 1 0 0 1 0 1 3000000000\n")) == 9);
  CHECK(util::exists(dir + "/" + pipeline::kUnfinishedFile));
  CHECK_FALSE(util::read_file(t.path + "/runs.jsonl", 1 << 20));
}

TEST_CASE("complete_unfinished: a run that ended without a word, its end null", "[finish]") {
  TempDir t;
  std::string dir = run_dir(t, "run", sample(t.path + "/runs.jsonl"));
  pipeline::complete_unfinished(dir);
  runlog::RunRecord rec;
  REQUIRE(runlog::parse_run_line(util::read_file(t.path + "/runs.jsonl", 1 << 20).value_or(""), rec));
  CHECK(rec.ended == std::string(runlog::key::kEndedWithoutWord));
  CHECK_FALSE(rec.status);
  CHECK_FALSE(rec.exit_code);
  CHECK_FALSE(rec.signal);
  CHECK(rec.untimed);
  // Another user's directory, or one others may write, is not read.
  TempDir t2;
  std::string open_dir = run_dir(t2, "run", sample(t2.path + "/runs.jsonl"));
  ::chmod(open_dir.c_str(), 0777);
  pipeline::complete_unfinished(open_dir);
  CHECK_FALSE(util::read_file(t2.path + "/runs.jsonl", 1 << 20));
}

TEST_CASE("complete_unfinished: the run's process gone on as a program without edashim's library is not told, not killed",
          "[finish]") {
  TempDir t;
  auto u = sample(t.path + "/runs.jsonl");
  u.probe_file = t.path + "/probe";
  u.verify.probed = true;
  // Another process's L record says nothing of the run's own.
  std::string records = "L\t9999\t/opt/other\t/lib/ld-musl-x86_64.so.1\tglibc\tmusl\n";
  REQUIRE(util::write_new_file(u.probe_file, records).ok());
  std::string dir = run_dir(t, "run", u);
  CHECK(run::exec_without_us(records, 4242).empty());
  pipeline::complete_unfinished(dir);
  runlog::RunRecord rec;
  REQUIRE(runlog::parse_run_line(util::read_file(t.path + "/runs.jsonl", 1 << 20).value_or(""), rec));
  CHECK(rec.ended == std::string(runlog::key::kEndedWithoutWord));
  // The run's own did: its end was not told.
  u.probe_file = t.path + "/probe2";
  records += "L\t4242\t/opt/hello-musl\t/lib/ld-musl-x86_64.so.1\tglibc\tmusl\n";
  REQUIRE(util::write_new_file(u.probe_file, records).ok());
  std::string dir2 = run_dir(t, "run2", u);
  CHECK(run::exec_without_us(records, 4242) == "/opt/hello-musl");
  pipeline::complete_unfinished(dir2);
  auto lines = util::split(util::read_file(t.path + "/runs.jsonl", 1 << 20).value_or(""), '\n');
  REQUIRE(lines.size() >= 2);
  REQUIRE(runlog::parse_run_line(lines[1], rec));
  CHECK(rec.ended == std::string(runlog::key::kEndedUntoldAfterExec) + "/opt/hello-musl (not_applied says why)");
  CHECK_FALSE(rec.status);
}
