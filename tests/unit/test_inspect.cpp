#include <sys/stat.h>
#include <utime.h>

#include <catch2/catch.hpp>

#include "proof_artefacts.hpp"
#include "skip.hpp"
#include "temp_dir.hpp"
#include "tool/inspect.hpp"

TEST_CASE("Facts: each artefact gets its kind", "[inspect]") {
  CHECK(tool::facts_from_image(proof_bytes("proof_dynamic")).kind == tool::ExecKind::dynamic);
  CHECK(tool::facts_from_image(proof_bytes("proof_static")).kind == tool::ExecKind::static_exe);
  CHECK(tool::facts_from_image(proof_bytes("proof_static_pie")).kind == tool::ExecKind::static_pie);
  CHECK(tool::facts_from_image("#!/bin/sh\necho hi\n").kind == tool::ExecKind::script);
  CHECK(tool::facts_from_image("just text").kind == tool::ExecKind::not_elf);
}

TEST_CASE("Facts: static glibc reads GLIBC_TUNABLES, own malloc and linked allocators are seen", "[inspect]") {
  CHECK(tool::facts_from_image(proof_bytes("proof_static")).glibc_static);
  CHECK(tool::facts_from_image(proof_bytes("proof_static_pie")).glibc_static);
  auto own = tool::facts_from_image(proof_bytes("proof_own_malloc"));
  CHECK(own.defines_malloc);
  CHECK(own.linked_allocator_library.empty());
  auto tbb = tool::facts_from_image(proof_bytes("proof_tbb"));
  CHECK_FALSE(tbb.defines_malloc);
  CHECK(tbb.linked_allocator_library == "libtbbmalloc_proxy.so.2");
  auto dyn = tool::facts_from_image(proof_bytes("proof_dynamic"));
  CHECK_FALSE(dyn.defines_malloc);
  CHECK(dyn.linked_allocator_library.empty());
}

TEST_CASE("Facts survive the cache's round trip", "[inspect]") {
  auto f = tool::facts_from_image(proof_bytes("proof_tbb"));
  auto back = tool::from_cache(tool::to_cache(f));
  CHECK(back.kind == f.kind);
  CHECK(back.interpreter == f.interpreter);
  CHECK(back.linked_allocator_library == f.linked_allocator_library);
  CHECK(back.defines_malloc == f.defines_malloc);
}

TEST_CASE("Shebang lines are read as the kernel reads them", "[inspect]") {
  auto a = tool::parse_shebang("#!/bin/sh\nexec x\n");
  REQUIRE(a);
  CHECK(a->interpreter == "/bin/sh");
  CHECK(a->arg.empty());
  auto b = tool::parse_shebang("#! /usr/bin/env  python3 -u \r\n");
  REQUIRE(b);
  CHECK(b->interpreter == "/usr/bin/env");
  CHECK(b->arg == "python3 -u");  // one argument, spaces included
  auto c = tool::parse_shebang("#!\t/bin/bash\t-e\n");
  REQUIRE(c);
  CHECK(c->interpreter == "/bin/bash");
  CHECK(c->arg == "-e");
  CHECK_FALSE(tool::parse_shebang("#!\n"));
  CHECK_FALSE(tool::parse_shebang("#  /bin/sh\n"));
}

TEST_CASE("Secure-execution mode: only when ids change or capabilities grow for a non-root user", "[inspect]") {
  tool::Privileges suid_root{true, false, false, 0, 0, false};
  CHECK(tool::secure_exec_reason(suid_root, 0, 0).empty());  // root running setuid-root: same ids
  CHECK(tool::secure_exec_reason(suid_root, 1000, 1000) == "setuid to uid 0");
  tool::Privileges suid_nobody{true, false, false, 65534, 0, false};
  CHECK(tool::secure_exec_reason(suid_nobody, 0, 0) == "setuid to uid 65534");
  tool::Privileges sgid{false, true, false, 0, 50, false};
  CHECK(tool::secure_exec_reason(sgid, 1000, 50).empty());
  CHECK(tool::secure_exec_reason(sgid, 1000, 1000) == "setgid to gid 50");
  tool::Privileges caps{false, false, true, 0, 0, false};
  CHECK(tool::secure_exec_reason(caps, 0, 0).empty());  // root's permitted set cannot grow
  CHECK_FALSE(tool::secure_exec_reason(caps, 1000, 1000).empty());
  suid_nobody.nosuid_mount = true;
  CHECK(tool::secure_exec_reason(suid_nobody, 0, 0).empty());
}

TEST_CASE("Verdict: static first, then secure-execution, then the executable's own malloc", "[inspect]") {
  tool::Preflight p;
  p.inspected = true;
  p.binary = "/x/tool";
  p.facts.kind = tool::ExecKind::dynamic;
  tool::decide(p);
  CHECK(p.preload_reaches());
  p.facts.defines_malloc = true;
  tool::decide(p);
  CHECK(p.blocker == tool::Blocker::own_malloc);
  p.secure = "setuid to uid 1";
  tool::decide(p);
  CHECK(p.blocker == tool::Blocker::secure_exec);
  CHECK(p.reason.find("setuid to uid 1") != std::string::npos);
  p.facts.kind = tool::ExecKind::static_pie;
  tool::decide(p);
  CHECK(p.blocker == tool::Blocker::static_pie);
  CHECK(p.reason.find("/x/tool") != std::string::npos);
}

TEST_CASE("Verdict: a linked allocator is a note, not a blocker", "[inspect]") {
  tool::Preflight p;
  p.inspected = true;
  p.binary = "/x/vpr";
  p.facts.kind = tool::ExecKind::dynamic;
  p.facts.linked_allocator_library = "libtbbmalloc_proxy.so.2";
  tool::decide(p);
  CHECK(p.preload_reaches());
  CHECK(p.linked_note.find("tbbmalloc") != std::string::npos);
  CHECK(p.linked_note.find("not glibc's") != std::string::npos);
}

TEST_CASE("Inspect follows a script to its interpreter, through /usr/bin/env too", "[inspect]") {
  TempDir dir;
  util::FactCache cache("");
  auto sh = dir.write("wrap.sh", "#!/bin/sh\nexec true\n");
  auto p = tool::inspect(sh, "/usr/bin:/bin", cache);
  REQUIRE(p.inspected);
  REQUIRE(p.scripts.size() == 1);
  CHECK(p.scripts[0] == sh);
  CHECK(p.binary == "/bin/sh");
  CHECK(p.facts.kind == tool::ExecKind::dynamic);
  CHECK(p.preload_reaches());

  auto env = dir.write("viaenv", "#!/usr/bin/env proof_static\n");
  auto q = tool::inspect(env, std::string(EDASHIM_PROOF_DIR), cache);
  REQUIRE(q.inspected);
  CHECK(q.binary == proof_artefact("proof_static"));
  CHECK(q.blocker == tool::Blocker::static_exe);
}

TEST_CASE("Inspect answers from the cache until the file changes", "[inspect]") {
  TempDir dir;
  util::FactCache cache(dir.path + "/facts.tsv");
  std::string copy = dir.path + "/tool";
  REQUIRE(util::write_file_atomic(copy, proof_bytes("proof_own_malloc"), 0755));
  auto first = tool::inspect(copy, "", cache);
  CHECK_FALSE(first.cached);
  CHECK(first.blocker == tool::Blocker::own_malloc);
  CHECK_FALSE(first.warned);
  tool::mark_warned(first, cache);

  util::FactCache again(dir.path + "/facts.tsv");  // as the next run reads it
  auto second = tool::inspect(copy, "", again);
  CHECK(second.cached);
  CHECK(second.warned);
  CHECK(second.blocker == tool::Blocker::own_malloc);

  // A rebuilt tool: new contents at the same path are inspected (and warned about) afresh.
  REQUIRE(util::write_file_atomic(copy, proof_bytes("proof_static"), 0755));
  util::FactCache third_cache(dir.path + "/facts.tsv");
  auto third = tool::inspect(copy, "", third_cache);
  CHECK_FALSE(third.cached);
  CHECK_FALSE(third.warned);
  CHECK(third.blocker == tool::Blocker::static_exe);
}

TEST_CASE("A setuid copy owned by another user is secure-execution for us", "[inspect]") {
  if (::getuid() != 0) EDASHIM_SKIP("needs root to chown a copy to another user");
  TempDir dir;
  util::FactCache cache("");
  std::string copy = dir.path + "/suid";
  REQUIRE(util::write_file_atomic(copy, proof_bytes("proof_dynamic"), 0755));
  REQUIRE(::chown(copy.c_str(), 65534, 65534) == 0);
  REQUIRE(::chmod(copy.c_str(), 04755) == 0);
  auto p = tool::inspect(copy, "", cache);
  CHECK(p.blocker == tool::Blocker::secure_exec);
  REQUIRE(::chown(copy.c_str(), 0, 0) == 0);  // chown clears the setuid bit
  REQUIRE(::chmod(copy.c_str(), 04755) == 0);
  CHECK(tool::inspect(copy, "", cache).preload_reaches());  // root running setuid-root
}

TEST_CASE("Kinds and blockers: each has the run log's word, and a kind's word reads back", "[inspect]") {
  using tool::Blocker;
  using tool::ExecKind;
  for (auto k : {ExecKind::not_elf, ExecKind::dynamic, ExecKind::static_exe, ExecKind::static_pie, ExecKind::script})
    CHECK(tool::kind_from_name(tool::kind_name(k)) == k);
  CHECK(tool::kind_name(ExecKind::unknown).empty());  // the log's null
  CHECK(tool::kind_from_name("elf64") == ExecKind::unknown);
  // The words readers of the log (report, docs/configuration.md's schema) know.
  std::vector<std::string> words;
  for (auto b : {Blocker::static_exe, Blocker::static_pie, Blocker::secure_exec, Blocker::sanitizer, Blocker::own_malloc,
                 Blocker::address_space_limit, Blocker::foreign_loader})
    words.emplace_back(tool::blocker_name(b));
  CHECK(words == std::vector<std::string>{"static", "static-pie", "secure-exec", "sanitizer", "own-malloc",
                                          "address-space-limit", "foreign-loader"});
  CHECK(tool::blocker_name(Blocker::none).empty());
  CHECK(tool::is_static(Blocker::static_pie));
  CHECK_FALSE(tool::is_static(Blocker::own_malloc));
}
