#include "runlog/write.hpp"

#include "runlog/schema.hpp"
#include "util/strings.hpp"

namespace runlog {
namespace {

void write_preflight(util::JsonWriter& record, const PreflightFields& p) {
  auto& pf = record.key(key::preflight).begin_object();
  pf.field(key::inspected, p.inspected);
  if (!p.inspected) pf.field(key::error, p.error);
  pf.field(key::path, p.path);
  pf.field(key::scripts, p.scripts);
  pf.key(key::binary).string_or_null(p.binary);
  pf.key(key::kind).string_or_null(p.kind);
  pf.field(key::own_malloc, p.own_malloc);
  pf.key(key::linked_allocator).string_or_null(p.linked_allocator);
  pf.key(key::secure_exec).string_or_null(p.secure_exec);
  pf.field(key::glibc_static, p.glibc_static);
  pf.field(key::preload_reaches, p.preload_reaches);
  pf.key(key::blocker).string_or_null(p.blocker);
  pf.key(key::reason).string_or_null(p.reason);
  pf.key(key::note).string_or_null(p.note);
  pf.field(key::cached, p.cached);
  if (p.fallback) {
    pf.key(key::fallback).begin_object();
    pf.field(key::instead_of, p.fallback->instead_of);
    pf.field(key::options, p.fallback->options);
    pf.key(key::source).string_or_null(p.fallback->source);
    pf.field(key::glibc_tunables, p.fallback->glibc_tunables);
    pf.field(key::effect, p.fallback->effect);
    pf.end_object();
  } else {
    pf.key(key::fallback).null();
  }
  pf.end_object();
}

void write_process(util::JsonWriter& record, const ProcessFields& q) {
  record.begin_object();
  record.field(key::pid, q.pid).field(key::ppid, q.ppid).field(key::exe, q.exe).field(key::malloc_object, q.malloc_object);
  record.field(key::provider, q.provider).field(key::forked, q.forked).field(key::end, q.end);
  record.field(key::vm_hwm_kb, q.vm_hwm_kb).field(key::vm_peak_kb, q.vm_peak_kb);
  record.end_object();
}

void write_verification(util::JsonWriter& record, const RunEnd& e) {
  if (!e.processes) {
    record.key(key::processes).null();
  } else {
    record.key(key::processes).begin_array();
    for (const auto& q : *e.processes) write_process(record, q);
    record.end_array();
  }
  record.field(key::allocator_verified, e.allocator_verified);
  record.field(key::verification, e.verification);
  if (e.not_applied) record.field(key::not_applied, *e.not_applied);
}

void write_same_work(util::JsonWriter& j, const RunStart& s) {
  j.field(key::arm, s.arm);
  if (s.explored.empty()) {
    j.key(key::explore).null();
  } else {
    j.key(key::explore).begin_object();
    j.field(key::ran, s.explored).field(key::instead_of, s.explored_instead_of);
    j.end_object();
  }
  j.key(key::machine).begin_object();
  j.key(key::cpu).value(s.machine.cpu);
  j.field(key::kernel, s.machine.kernel);
  j.field(key::cores, s.machine.cores);
  j.end_object();
  j.field(key::signature, s.signature);
  j.field(key::signature_text, s.signature_text);
}

// The figures only a waiting parent knows, null: nobody was left to measure them.
void untimed(util::JsonWriter& j) {
  for (auto name : {key::wall_s, key::user_s, key::sys_s, key::max_rss_kb, key::status}) j.key(name).null();
}

}  // namespace

void write_start(util::JsonWriter& j, const RunStart& s) {
  j.begin_object();
  j.field(key::version, key::kVersion);
  j.field(key::start, util::iso_time_utc(s.start_time));
  j.field(key::start_unix, s.start_time);
  j.field(key::tool, s.tool);
  j.field(key::path, s.path);
  j.field(key::argv, s.argv);
  j.field(key::cwd, s.cwd);
  j.field(key::host, s.host);
  j.field(key::pid, s.pid);
  j.field(key::tool_pid, s.tool_pid);
  j.field(key::run_id, s.run_id);
  j.field(key::flow, s.flow);
  j.key(key::parent_run).string_or_null(s.parent_run);
  j.key(key::profile).string_or_null(s.profile);
  j.field(key::config_files, s.config_files);
  j.field(key::config_ignored, s.config_ignored);
  j.field(key::notices, s.notices);
  j.key(key::allocator).begin_object();
  j.field(key::requested, s.requested);
  j.key(key::library).string_or_null(s.library);
  j.field(key::alloc_version, s.version);
  j.key(key::build).string_or_null(s.library.empty() ? "" : s.build);
  j.field(key::note, s.note);
  j.key(key::preloaded_by_caller).string_or_null(s.preloaded_by_caller);
  j.end_object();
  j.key(key::env_set).begin_object();
  for (const auto& [name, after] : s.env_set) j.field(name, after);
  j.end_object();
  j.key(key::env_kept).begin_object();
  for (const auto& [name, yours] : s.env_kept) j.field(name, yours);
  j.end_object();
  j.key(key::scratch).begin_object();
  j.key(key::dir).string_or_null(s.scratch_dir);
  j.field(key::kept, s.scratch_kept);
  j.field(key::note, s.scratch_note);
  j.end_object();
  write_preflight(j, s.preflight);
  write_same_work(j, s);
}

void write_end(util::JsonWriter& j, const RunEnd& e) {
  j.field(key::wall_s, e.wall_s);
  j.field(key::user_s, e.user_s);
  j.field(key::sys_s, e.sys_s);
  j.field(key::max_rss_kb, e.max_rss_kb);
  j.field(key::exit_code, e.exit_code);
  j.field(key::signal, e.signal);
  if (e.scratch_left_in_use) j.field(key::scratch_left_in_use, *e.scratch_left_in_use);
  j.field(key::status, e.status);
  if (e.ended) j.field(key::ended, *e.ended);
  write_verification(j, e);
  j.end_object();
}

void end_config_error(util::JsonWriter& j, std::string_view error) {
  j.field(key::config_error, error);
  untimed(j);
  j.end_object();
}

void end_fallback(util::JsonWriter& j, std::string_view why) {
  j.field(key::fallback, why);
  j.key(key::status).null();
  j.end_object();
}

void end_traced(util::JsonWriter& j, std::string_view who) {
  j.field(key::traced, who);
  untimed(j);
  j.end_object();
}

}  // namespace runlog
