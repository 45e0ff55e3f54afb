// The pure parts of the exec hook (issue 26): the loader check over bytes (probe/loader_check.c),
// what a routed run takes out of the environment it inherits, the tools routed, and L records.
#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "pipeline/plan.hpp"
#include "probe/loader_check.h"
#include "run/environment.hpp"
#include "run/probe_records.hpp"

namespace {

long read_mem(void* ctx, unsigned long long off, void* buf, unsigned long n) {
  const auto& s = *static_cast<const std::string*>(ctx);
  if (off >= s.size()) return 0;
  unsigned long k = std::min<unsigned long>(n, s.size() - off);
  std::memcpy(buf, s.data() + off, k);
  return long(k);
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

int kind_of(std::string bytes, std::string& interp) {
  char buf[4096];
  int k = edh_exec_kind(read_mem, &bytes, buf, sizeof buf);
  interp = buf;
  return k;
}

}  // namespace

TEST_CASE("Loader names: glibc's and musl's, run by hand, are recognised, other libraries are not", "[hook]") {
  CHECK(edh_is_loader_name("ld-linux-x86-64.so.2"));
  CHECK(edh_is_loader_name("ld-2.31.so"));
  CHECK(edh_is_loader_name("ld-musl-x86_64.so.1"));
  CHECK(edh_is_musl_loader("ld-musl-x86_64.so.1"));
  CHECK_FALSE(edh_is_musl_loader("ld-linux-x86-64.so.2"));
  CHECK_FALSE(edh_is_loader_name("libc.so.6"));
  CHECK_FALSE(edh_is_loader_name("ld"));       // the linker
  CHECK_FALSE(edh_is_loader_name("ld-wrapper"));
}

TEST_CASE("GLIBC versions compare by number, not as text", "[hook]") {
  CHECK(edh_version_cmp("GLIBC_2.34", "GLIBC_2.4") > 0);
  CHECK(edh_version_cmp("GLIBC_2.2.5", "GLIBC_2.3") < 0);
  CHECK(edh_version_cmp("GLIBC_2.3.4", "GLIBC_2.3") > 0);
  CHECK(edh_version_cmp("GLIBC_2.31", "GLIBC_2.31") == 0);
}

TEST_CASE("A script, a dynamic ELF with its PT_INTERP, and bytes that are neither", "[hook]") {
  std::string interp;
  CHECK(kind_of("#!/bin/sh\necho\n", interp) == EDH_SCRIPT);
  CHECK(kind_of("just text", interp) == EDH_OTHER);
  CHECK(kind_of("", interp) == EDH_OTHER);
  auto sh = slurp("/bin/sh");
  REQUIRE(sh.size() > 64);
  CHECK(kind_of(sh, interp) == EDH_DYNAMIC);
  CHECK(interp == edh_system_loader());
  // Truncated after the headers: the PT_INTERP string is out of bounds, nothing is made up.
  CHECK(kind_of(sh.substr(0, 300), interp) != EDH_DYNAMIC);
  CHECK(kind_of(sh.substr(0, 40), interp) == EDH_OTHER);
}

TEST_CASE("What the kernel starts by itself: #! or ELF's magic, nothing else", "[hook]") {
  auto starts = [](const std::string& b) { return edh_starts_as_program(b.data(), b.size()); };
  CHECK(starts("#!/bin/sh\n"));
  CHECK(starts("#!"));
  CHECK(starts(std::string("\x7f" "ELF\x02\x01", 6)));
  CHECK(starts(slurp("/bin/sh").substr(0, 4)));
  CHECK_FALSE(starts("echo hi\n"));  // ENOEXEC: execvp would run it under /bin/sh
  CHECK_FALSE(starts("#"));
  CHECK_FALSE(starts(" #!/bin/sh"));
  CHECK_FALSE(starts(std::string("\x7f" "EL", 3)));
  CHECK_FALSE(starts(""));
}

namespace {
struct Shebang {
  bool ok;
  std::string interp, arg;
  bool has_arg;
  bool operator==(const Shebang& o) const { return ok == o.ok && interp == o.interp && arg == o.arg && has_arg == o.has_arg; }
};
std::ostream& operator<<(std::ostream& os, const Shebang& s) {
  return os << "{" << s.ok << " [" << s.interp << "] " << s.has_arg << " [" << s.arg << "]}";
}
Shebang shebang(const std::string& head) {
  edh_shebang sb;
  std::memset(&sb, 'x', sizeof sb);  // nothing from before may show through
  bool ok = edh_parse_shebang(head.data(), head.size(), &sb) == 1;
  return {ok, sb.interp, sb.arg, sb.has_arg != 0};
}
Shebang yes(std::string interp) { return {true, std::move(interp), "", false}; }
Shebang yes(std::string interp, std::string arg) { return {true, std::move(interp), std::move(arg), true}; }
const Shebang no{false, "", "", false};
}  // namespace

TEST_CASE("The #! line as the kernel parses it: one interpreter, at most one argument", "[hook]") {
  CHECK(shebang("#!/usr/bin/yosys -s\nread_verilog t.v\n") == yes("/usr/bin/yosys", "-s"));
  CHECK(shebang("#!/bin/sh\n") == yes("/bin/sh"));
  CHECK(shebang("#! \t/bin/sh \t\n") == yes("/bin/sh"));  // blanks around, none kept
  // One argument: the rest of the line, inner blanks kept, outer ones not.
  CHECK(shebang("#!/usr/bin/env  python3 -u \t\n") == yes("/usr/bin/env", "python3 -u"));
  CHECK(shebang("#!/bin/sh\t-e\n") == yes("/bin/sh", "-e"));
  // A carriage return is not a blank: a file saved with CRLF names "-s\r" (and fails directly).
  CHECK(shebang("#!/usr/bin/yosys -s\r\n") == yes("/usr/bin/yosys", "-s\r"));
  CHECK(shebang("#!/bin/sh\r\n") == yes("/bin/sh\r"));
  // No newline at all: a short file, its name ends at the end (the kernel's buffer is NUL after it).
  CHECK(shebang("#!/usr/bin/yosys") == yes("/usr/bin/yosys"));
  CHECK(shebang("#!/usr/bin/yosys -q") == yes("/usr/bin/yosys", "-q"));
  // A NUL ends the name; after the blanks it makes an empty argument, passed all the same.
  CHECK(shebang(std::string("#!/bin/sh\0 -x\n", 14)) == yes("/bin/sh"));
  CHECK(shebang(std::string("#!/bin/sh \0x\n", 13)) == yes("/bin/sh", ""));
  CHECK(shebang(std::string("#!/bin/sh -a\0b\n", 15)) == yes("/bin/sh", "-a"));
  // ENOEXEC: not #!, no interpreter.
  CHECK(shebang("/bin/sh\n") == no);
  CHECK(shebang("#") == no);
  CHECK(shebang("") == no);
  CHECK(shebang("#!\n/bin/sh\n") == no);
  CHECK(shebang("#!   \t \n") == no);
  CHECK(shebang("#!") == no);
}

TEST_CASE("The #! line's 256 bytes: a name cut short is refused, an argument cut short is not", "[hook]") {
  std::string dir = "/" + std::string(240, 'd');
  // Name and argument within the 256 bytes, no newline in them: the argument loses the last byte.
  std::string name = dir + "/tool";  // 246 bytes: "#!" + name = 248
  CHECK(shebang("#!" + name + " abcdefghij\nrest") == yes(name, "abcdef"));  // 248 + 1 + 6 = 255: byte 256 dropped
  // The name runs past byte 256: it could be longer, ENOEXEC.
  CHECK(shebang("#!" + dir + "/" + std::string(40, 't') + "\n") == no);
  // The name ends exactly before byte 256 with a blank at 255, no newline: kept.
  std::string n253 = "/" + std::string(252, 'n');
  CHECK(shebang("#!" + n253 + " x\n") == yes(n253));
  // More than 256 bytes given: the newline after them is not seen, as by the kernel.
  CHECK(shebang("#!/bin/sh " + std::string(300, 'a') + "\n").arg == std::string(245, 'a'));
  // A newline within the buffer wins, whatever follows.
  CHECK(shebang("#!/bin/sh\n" + std::string(400, 'z')) == yes("/bin/sh"));
}

// `bytes` with the first NUL-delimited `from` replaced by `to` (the same length): a string table
// entry renamed in place.
static std::string renamed(std::string bytes, const std::string& from, const std::string& to) {
  auto at = bytes.find(std::string(1, '\0') + from + std::string(1, '\0'));
  REQUIRE(at != std::string::npos);
  REQUIRE(from.size() == to.size());
  bytes.replace(at + 1, from.size(), to);
  return bytes;
}

TEST_CASE("A program that starts no other: only libc needed, nothing imported that starts one", "[hook]") {
  auto may = [](std::string bytes) { return edh_may_start_programs(read_mem, &bytes); };
  auto true_ = slurp("/usr/bin/true");
  REQUIRE(!true_.empty());
  CHECK(may(true_) == 0);
  // One import renamed: each of these starts a program or a shell that does.
  CHECK(may(renamed(true_, "abort", "execv")) == 1);
  CHECK(may(renamed(true_, "fseeko", "system")) == 1);
  CHECK(may(renamed(true_, "lseek", "popen")) == 1);
  // A library besides libc: what it calls cannot be seen from here.
  CHECK(may(renamed(true_, "libc.so.6", "libz.so.6")) == 1);
  CHECK(may(slurp("/bin/sh")) == 1);  // dash: execve
  // Cut before its section headers, or not an ELF: not shown to start nothing.
  CHECK(may(true_.substr(0, true_.size() - 64)) == 1);
  CHECK(may("#!/bin/sh\n") == 1);
  CHECK(may("") == 1);
}

TEST_CASE("What the probe needs of libc, and a libc that has it or lacks it", "[hook]") {
  auto probe = slurp(EDASHIM_PROBE_LIBRARY);
  REQUIRE(!probe.empty());
  char needs[1024] = "";
  REQUIRE(edh_needed_glibc(read_mem, &probe, needs, sizeof needs) == 0);
  CHECK(std::string(needs).find("GLIBC_2.2.5") != std::string::npos);
  // The system's libc defines all of them.
  auto libc = slurp("/lib/x86_64-linux-gnu/libc.so.6");
  if (libc.empty()) libc = slurp("/lib64/libc.so.6");
  REQUIRE(!libc.empty());
  char missing[64], best[64];
  CHECK(edh_libc_covers(read_mem, &libc, needs, missing, sizeof missing, best, sizeof best) == 1);
  CHECK(std::string(best).rfind("GLIBC_2.", 0) == 0);
  // A version no glibc has yet: named as missing, the newest the libc has said.
  CHECK(edh_libc_covers(read_mem, &libc, "GLIBC_2.2.5 GLIBC_9.99 GLIBC_9.1", missing, sizeof missing, best,
                        sizeof best) == 0);
  CHECK(std::string(missing) == "GLIBC_9.99");
  // Not a libc of this machine: no verdict from it.
  std::string text = "not an ELF";
  CHECK(edh_libc_covers(read_mem, &text, needs, missing, sizeof missing, best, sizeof best) == -1);
  // A truncated libc: the version section cannot be read, so nothing is shown to be there.
  auto cut = libc.substr(0, 4096);
  CHECK(edh_libc_covers(read_mem, &cut, "GLIBC_2.2.5", missing, sizeof missing, best, sizeof best) == 0);
}

TEST_CASE("A routed run starts from the caller's environment: the run above's preloads and variables out", "[hook]") {
  auto set = run::encode_set_entries({{"MALLOC_CONF", run::value_fingerprint("background_thread:true"), false},
                                      {"TMPDIR", run::value_fingerprint("/dev/shm/x"), false}});
  std::vector<std::string> env{"PATH=/bin",
                               "LD_PRELOAD=/mine/libasan.so:/usr/lib/libjemalloc.so.2:/p/libedashim_probe.so",
                               "__EDASHIM_OURS=/usr/lib/libjemalloc.so.2:/p/libedashim_probe.so",
                               "__EDASHIM_SET=" + set,
                               "MALLOC_CONF=background_thread:true",
                               "TMPDIR=/dev/shm/x",
                               "__EDASHIM_SCRATCH=/dev/shm/x",
                               "__EDASHIM_PROBE=/run/p/records",
                               "__EDASHIM_NOTES=/run/p/records",
                               "__EDASHIM_ROUTE=/usr/bin/yosys",
                               "__EDASHIM_CHAIN=/bin/edashim",
                               "HOME=/h"};
  auto out = run::without_inherited(env);
  CHECK(out == std::vector<std::string>{"PATH=/bin", "LD_PRELOAD=/mine/libasan.so", "__EDASHIM_CHAIN=/bin/edashim",
                                        "HOME=/h"});
  // Only edashim's: nothing left, no empty LD_PRELOAD.
  auto none = run::without_inherited({"LD_PRELOAD=/p/libedashim_probe.so", "__EDASHIM_OURS=/p/libedashim_probe.so"});
  CHECK(none.empty());
}

TEST_CASE("The hook comes with anything edashim preloads, and its bookkeeping says what was added", "[hook]") {
  run::EnvInputs in;
  in.env = {{"FOO", "1"}};
  in.current = {"PATH=/bin", "FOO=", "LD_PRELOAD=/mine.so"};
  in.allocator_library = "/usr/lib/libjemalloc.so.2";
  in.hook_library = "/p/libedashim_probe.so";
  auto plan = run::build_environment(in);
  CHECK(run::lookup(plan.env, "LD_PRELOAD") == "/mine.so:/usr/lib/libjemalloc.so.2:/p/libedashim_probe.so");
  CHECK(run::lookup(plan.env, run::kOursVar) == "/usr/lib/libjemalloc.so.2:/p/libedashim_probe.so");
  // FOO was set empty: a run below empties it again while it has edashim's value.
  CHECK(run::lookup(plan.env, run::kSetVar) == "FOO==" + run::value_fingerprint("1"));
  CHECK(run::without_inherited(plan.env) == std::vector<std::string>{"PATH=/bin", "FOO=", "LD_PRELOAD=/mine.so"});
  for (const auto& c : plan.changes) CHECK(c.name != run::kOursVar);
  // Nothing else preloaded: no hook either, the environment as it was.
  in.allocator_library.clear();
  auto plain = run::build_environment(in);
  CHECK(run::lookup(plain.env, "LD_PRELOAD") == "/mine.so");
  CHECK(run::lookup(plain.env, run::kOursVar) == std::nullopt);
}

TEST_CASE("The tools routed are the shipped profiles' names, not all.toml nor odd names", "[hook]") {
  CHECK(pipeline::tool_names_of_profiles({"yosys.toml", "all.toml", ".", "..", "vpr.toml", "README", "a:b.toml",
                                          ".hidden.toml", "yosys-abc.toml"}) ==
        std::vector<std::string>{"vpr", "yosys", "yosys-abc"});
}

TEST_CASE("L records become the log line's list of processes left without the allocator", "[hook]") {
  std::string text =
      "S\t10\t1\t/bin/sh\t/lib/libc.so.6\n"
      "L\t11\t/opt/t\\tool\t/lib/ld-musl-x86_64.so.1\tglibc\tmusl\n"
      "L\tx\tbad\tline\tGLIBC_2.34\t\n"
      "L\t12\t/opt/b/yosys\t/opt/b/lib/ld-linux-x86-64.so.2\tGLIBC_2.34\tGLIBC_2.31\n";
  CHECK(run::not_applied(text) ==
        std::vector<std::string>{"/opt/t\tool: loader /lib/ld-musl-x86_64.so.1, needs glibc, has musl",
                                 "/opt/b/yosys: loader /opt/b/lib/ld-linux-x86-64.so.2, needs GLIBC_2.34, has GLIBC_2.31"});
  // A static program (an empty loader), said once however many times make started it, and the
  // same loader's note once too.
  std::string more = text + "L\t13\t./sparent\t\t\t\nL\t14\t./sparent\t\t\t\n" +
                     "L\t15\t/opt/b/yosys\t/opt/b/lib/ld-linux-x86-64.so.2\tGLIBC_2.34\tGLIBC_2.31\n";
  auto na = run::not_applied(more);
  REQUIRE(na.size() == 3);
  CHECK(na[2].rfind("what ./sparent starts: it is statically linked", 0) == 0);
  // The probe's own records are not disturbed by L lines.
  CHECK(run::parse_probe_records(text).size() == 1);
}
