#include <catch2/catch.hpp>

#include "tool/path_order.hpp"

using tool::Found;
using tool::Order;

namespace {
Found shim(const std::string& p) { return {p, true, true}; }
Found real(const std::string& p) { return {p, false, false}; }
Found other_edashim(const std::string& p) { return {p, true, false}; }
}  // namespace

TEST_CASE("PATH order: the shim first and a real tool after it is all well", "[path_order]") {
  auto r = tool::analyse_order({shim("/s/yosys"), real("/usr/bin/yosys")});
  CHECK(r.order == Order::Ok);
  CHECK(r.runs_now == "/s/yosys");
  CHECK(r.real == "/usr/bin/yosys");
}

TEST_CASE("PATH order: a real tool before the shim shadows it", "[path_order]") {
  auto r = tool::analyse_order({real("/usr/local/bin/yosys"), shim("/s/yosys"), real("/usr/bin/yosys")});
  CHECK(r.order == Order::Shadowed);
  CHECK(r.runs_now == "/usr/local/bin/yosys");
  CHECK(r.real == "/usr/local/bin/yosys");
}

TEST_CASE("PATH order: another edashim's link before ours is reported as such", "[path_order]") {
  auto r = tool::analyse_order({other_edashim("/opt/edashim/shims/yosys"), shim("/s/yosys"), real("/usr/bin/yosys")});
  CHECK(r.order == Order::OtherEdashim);
  CHECK(r.runs_now == "/opt/edashim/shims/yosys");
  CHECK(r.real == "/usr/bin/yosys");
}

TEST_CASE("PATH order: the shim with no real tool after it", "[path_order]") {
  CHECK(tool::analyse_order({shim("/s/vpr")}).order == Order::NoRealTool);
  CHECK(tool::analyse_order({shim("/s/vpr"), other_edashim("/o/vpr")}).order == Order::NoRealTool);
}

TEST_CASE("PATH order: no link of ours on PATH means the shim directory is not on it", "[path_order]") {
  auto r = tool::analyse_order({real("/usr/bin/yosys")});
  CHECK(r.order == Order::NotOnPath);
  CHECK(r.runs_now == "/usr/bin/yosys");
  CHECK(tool::analyse_order({}).order == Order::NotOnPath);
  // A plain file in the shim directory (not a link to edashim) is not ours either.
  CHECK(tool::analyse_order({{"/s/yosys", false, true}}).order == Order::NotOnPath);
}

TEST_CASE("path_index finds an entry by the caller's notion of sameness", "[path_order]") {
  std::vector<std::string> entries = {"/a", "/b/", "/c"};
  CHECK(tool::path_index(entries, [](const std::string& e) { return e == "/b/"; }) == 1);
  CHECK(tool::path_index(entries, [](const std::string& e) { return e == "/x"; }) == -1);
}

TEST_CASE("The PATH line prepends once, quoted for the shell", "[path_order]") {
  auto bash = tool::path_line("bash", "/home/u/.local/lib/edashim/shims");
  CHECK(bash == "case \":$PATH:\" in *:/home/u/.local/lib/edashim/shims:*) ;; *) export "
                "PATH=/home/u/.local/lib/edashim/shims:\"$PATH\" ;; esac");
  CHECK(tool::path_line("bash", "/my dir") .find("'/my dir'") != std::string::npos);
  CHECK(tool::path_line("fish", "/s") == "contains -- /s $PATH; or set -gx PATH /s $PATH");
}

TEST_CASE("Modules: which system manages this shell, and whether edashim's module is loaded", "[path_order]") {
  using tool::Modules;
  // Lmod sets MODULESHOME too: LMOD_CMD decides.
  CHECK(tool::module_scene("/usr/share/lmod/lmod/libexec/lmod", nullptr, "/usr/share/lmod/lmod", nullptr).system == Modules::kLmod);
  CHECK(tool::module_scene(nullptr, "/usr/lib/x86_64-linux-gnu/modulecmd.tcl", nullptr, nullptr).system ==
        Modules::kEnvironmentModules);
  CHECK(tool::module_scene(nullptr, nullptr, "/usr/share/modules", nullptr).system == Modules::kEnvironmentModules);
  CHECK(tool::module_scene("", "", "", nullptr).system == Modules::kNone);
  CHECK(tool::module_scene(nullptr, nullptr, nullptr, "gcc/12:edashim:yosys/0.23").edashim_loaded);
  CHECK(tool::module_scene(nullptr, nullptr, nullptr, "edashim/0.1.0").edashim_loaded);
  CHECK_FALSE(tool::module_scene(nullptr, nullptr, nullptr, "edashim-old:myedashim/1:yosys").edashim_loaded);
  CHECK_FALSE(tool::module_scene(nullptr, nullptr, nullptr, nullptr).edashim_loaded);
}

TEST_CASE("Modules: the fix for shadowed links fits the module system", "[path_order]") {
  using tool::Modules;
  const std::string plain = "export PATH=/t/lib/edashim/shims:\"$PATH\"", mods = "/t/share/edashim/modulefiles";
  // Lmod: its Lua module, whose priority keeps the links first; loaded and still shadowed: not a module's doing.
  auto lmod = tool::links_first_fix({Modules::kLmod, false}, mods, plain);
  CHECK(lmod.find("module use /t/share/edashim/modulefiles/lua && module load edashim") == 0);
  CHECK(tool::links_first_fix({Modules::kLmod, true}, mods, plain) == plain);
  // Environment Modules: no priority; loaded again after the tools'.
  auto em = tool::links_first_fix({Modules::kEnvironmentModules, true}, mods, plain);
  CHECK(em.find("module unload edashim && module load edashim") == 0);
  CHECK(em.find("no path priority") != std::string::npos);
  CHECK(tool::links_first_fix({Modules::kEnvironmentModules, false}, mods, plain)
            .find("module use /t/share/edashim/modulefiles/tcl && module load edashim") == 0);
  // No module system, or no module files installed: the PATH line.
  CHECK(tool::links_first_fix({Modules::kNone, false}, mods, plain) == plain);
  CHECK(tool::links_first_fix({Modules::kLmod, false}, "", plain) == plain);
  CHECK(tool::links_first_fix({Modules::kLmod, false}, "/my tree/share/edashim/modulefiles", plain)
            .find("module use '/my tree/share/edashim/modulefiles/lua'") == 0);
}
