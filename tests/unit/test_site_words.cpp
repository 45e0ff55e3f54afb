// What edashim says where (pipeline/notices.hpp), what a job submitter's job carries
// (pipeline/submitters.hpp) and how the real tool is looked up (tool/resolve.hpp): the pure parts.
#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "pipeline/notices.hpp"
#include "pipeline/submitters.hpp"
#include "run/environment.hpp"
#include "temp_dir.hpp"
#include "tool/resolve.hpp"

using pipeline::NoticeRoute;

TEST_CASE("Notices: EDASHIM_NOTICES's words and where each says them", "[notices]") {
  CHECK(pipeline::parse_notice_route("") == NoticeRoute::terminal);
  CHECK(pipeline::parse_notice_route("terminal") == NoticeRoute::terminal);
  CHECK(pipeline::parse_notice_route("stderr") == NoticeRoute::stderr_always);
  CHECK(pipeline::parse_notice_route("log") == NoticeRoute::log_only);
  CHECK_FALSE(pipeline::parse_notice_route("loud"));
  CHECK_FALSE(pipeline::parse_notice_route("Stderr"));
  // Off a terminal (a Tcl exec's pipe, a build log) the default says nothing.
  CHECK_FALSE(pipeline::says_on_stderr(NoticeRoute::terminal, false));
  CHECK(pipeline::says_on_stderr(NoticeRoute::terminal, true));
  CHECK(pipeline::says_on_stderr(NoticeRoute::stderr_always, false));
  CHECK_FALSE(pipeline::says_on_stderr(NoticeRoute::log_only, true));
}

TEST_CASE("Submitters: a job carries the caller's environment, nothing of edashim's", "[submitters]") {
  CHECK(pipeline::is_job_submitter("sbatch"));
  CHECK(pipeline::is_job_submitter("qsub"));
  CHECK_FALSE(pipeline::is_job_submitter("yosys"));
  CHECK_FALSE(pipeline::is_job_submitter("sbatch2"));
  // What edashim set (fingerprinted in __EDASHIM_SET) goes; the caller's own stays.
  std::vector<run::SetEntry> set{{"LC_ALL", run::value_fingerprint("C.UTF-8"), false}};
  std::vector<std::string> env{"PATH=/usr/bin",
                               "LD_PRELOAD=/mine.so:/lib/libjemalloc.so.2",
                               std::string(run::kOursVar) + "=/lib/libjemalloc.so.2",
                               std::string(run::kSetVar) + "=" + run::encode_set_entries(set),
                               "LC_ALL=C.UTF-8",
                               "__EDASHIM_CHAIN=/x/edashim",
                               "__EDASHIM_PARENT_RUN=0123456789abcdef",
                               "__EDASHIM_TOOLS=yosys:sbatch",
                               "EDASHIM_FLOW=fedcba9876543210",
                               "MY_VAR=1"};
  auto batch = pipeline::submitter_environment("sbatch", env);
  CHECK(batch == std::vector<std::string>{"PATH=/usr/bin", "LD_PRELOAD=/mine.so", "MY_VAR=1"});
  // srun and salloc wait for their job: the flow that waits stays.
  auto step = pipeline::submitter_environment("srun", env);
  CHECK(step == std::vector<std::string>{"PATH=/usr/bin", "LD_PRELOAD=/mine.so", "EDASHIM_FLOW=fedcba9876543210", "MY_VAR=1"});
}

TEST_CASE("Resolve: a file of the name that cannot be executed is execvp's EACCES", "[resolve]") {
  TempDir t;
  t.write("a/tool", "#!/bin/sh\n");
  ::chmod((t.path + "/a/tool").c_str(), 0644);
  t.write("b/tool", "#!/bin/sh\n");
  ::chmod((t.path + "/b/tool").c_str(), 0755);
  tool::SelfIdentity self;
  auto only_denied = tool::resolve("tool", t.path + "/a", self);
  CHECK(only_denied.path.empty());
  CHECK(only_denied.status_if_not_found() == 126);
  CHECK(tool::not_found_message("tool", only_denied) == "tool: " + t.path + "/a/tool: Permission denied");
  // One that can be executed later on PATH is taken, as execvp goes on past EACCES.
  auto found = tool::resolve("tool", t.path + "/a:" + t.path + "/b", self);
  CHECK(found.path == t.path + "/b/tool");
  // Passed over (its #! interpreter is missing): the next, or nothing.
  CHECK(tool::resolve("tool", t.path + "/b", self, {t.path + "/b/tool"}).path.empty());
  auto none = tool::resolve("tool", t.path + "/c", self);
  CHECK(none.status_if_not_found() == 127);
}
