#include <catch2/catch.hpp>

#include "run/probe_records.hpp"

TEST_CASE("Probe records: a shell that exec'd into ABC is two images of one pid", "[probe]") {
  auto ps = run::parse_probe_records(
      "S\t10\t1\t/usr/bin/yosys\t/usr/lib/libjemalloc.so.2\n"
      "S\t11\t10\t/usr/bin/dash\t/usr/lib/libjemalloc.so.2\n"
      "S\t11\t10\t/usr/bin/berkeley-abc\t/usr/lib/libjemalloc.so.2\n"
      "E\t11\t2000\t9000\n"
      "E\t10\t5000\t20000\n");
  REQUIRE(ps.size() == 3);
  CHECK(ps[1].exe == "/usr/bin/dash");
  CHECK(ps[1].end == "exec");
  CHECK_FALSE(ps[1].vm_hwm_kb);
  CHECK(ps[2].end == "exit");
  CHECK(ps[2].vm_hwm_kb == 2000);
  CHECK(ps[2].vm_peak_kb == 9000);
  CHECK(ps[0].vm_hwm_kb == 5000);
}

TEST_CASE("Probe records: a forked child, a process that never exited, escapes and damage", "[probe]") {
  auto ps = run::parse_probe_records(
      "S\t20\t1\t/a\\tb\\nc\\\\d\t/lib/libc.so.6\n"
      "F\t21\t20\t/a\\tb\\nc\\\\d\t/lib/libc.so.6\n"
      "E\t21\t10\t20\n"
      "E\t99\t1\t1\n"          // exit of a process that never started: ignored
      "S\t22\t20\tonly-four\n"  // damaged
      "X\t1\t2\t3\t4\n"
      "S\t23\t20\t/bin/sh\t/lib/libc.so.6");  // no newline: a record cut short is still parsed
  REQUIRE(ps.size() == 3);
  CHECK(ps[0].exe == "/a\tb\nc\\d");
  CHECK(ps[0].end == "unknown");  // _exit, a signal, or still running when the tool ended
  CHECK(ps[1].forked);
  CHECK(ps[1].end == "exit");
  CHECK(ps[2].pid == 23);
}

TEST_CASE("Who served malloc: allocator, glibc, or the executable itself", "[probe]") {
  run::ProbedProcess p;
  p.exe = "/opt/tool";
  p.malloc_object = "/usr/lib/x86_64-linux-gnu/libmimalloc.so.2";
  CHECK(run::malloc_provider(p) == "mimalloc");
  p.malloc_object = "/lib/x86_64-linux-gnu/libc.so.6";
  CHECK(run::malloc_provider(p) == "glibc");
  p.malloc_object = "/opt/tool";
  CHECK(run::malloc_provider(p) == "executable");
  p.malloc_object = "/usr/lib/x86_64-linux-gnu/libtbbmalloc_proxy.so.2";
  CHECK(run::malloc_provider(p) == "tbbmalloc");
}

TEST_CASE("Verified only when every recorded process used the requested allocator", "[probe]") {
  auto all_je = run::parse_probe_records(
      "S\t1\t0\t/bin/yosys\t/usr/lib/libjemalloc.so.2\nS\t2\t1\t/bin/sh\t/usr/lib/libjemalloc.so.2\n");
  CHECK(run::verify_allocator(all_je, "jemalloc").verified);
  CHECK_FALSE(run::verify_allocator(all_je, "mimalloc").verified);
  CHECK_FALSE(run::verify_allocator(all_je, "system").verified);

  auto one_off = run::parse_probe_records(
      "S\t1\t0\t/bin/yosys\t/usr/lib/libjemalloc.so.2\nS\t2\t1\t/opt/abc\t/opt/abc\n");
  auto v = run::verify_allocator(one_off, "jemalloc");
  CHECK_FALSE(v.verified);
  CHECK(v.note.find("pid 2") != std::string::npos);

  CHECK_FALSE(run::verify_allocator({}, "system").verified);  // no evidence is not proof

  // A nested call through a dynamically linked edashim (yosys -> sh -> the yosys-abc link): the
  // launcher's own record is not the tool's, the real tool's after its exec is.
  auto nested = run::parse_probe_records(
      "S\t1\t0\t/bin/yosys\t/usr/lib/libjemalloc.so.2\nS\t2\t1\t/opt/edashim\t/opt/edashim\n"
      "S\t2\t1\t/bin/abc\t/usr/lib/libjemalloc.so.2\n");
  CHECK_FALSE(run::verify_allocator(nested, "jemalloc").verified);
  auto nv = run::verify_allocator(nested, "jemalloc", "/opt/edashim");
  CHECK(nv.verified);
  CHECK(nv.note.find("2 process(es)") != std::string::npos);
  auto only_launcher = run::parse_probe_records("S\t2\t1\t/opt/edashim\t/opt/edashim\n");
  CHECK_FALSE(run::verify_allocator(only_launcher, "system", "/opt/edashim").verified);

  auto libc = run::parse_probe_records("S\t1\t0\t/bin/true\t/lib/x86_64-linux-gnu/libc.so.6\n");
  CHECK(run::verify_allocator(libc, "system").verified);
  CHECK_FALSE(run::verify_allocator(libc, "jemalloc").verified);
}
