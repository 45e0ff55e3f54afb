#include "bench/sweep.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "alloc/registry.hpp"
#include "util/strings.hpp"
#include "util/table.hpp"

namespace bench {

util::Result<TuneOption> parse_tune_option(const std::string& text) {
  auto eq = text.find('=');
  auto dot = text.find('.');
  if (eq == std::string::npos || dot == std::string::npos || dot > eq || dot == 0 || dot + 1 == eq) {
    return util::fail("expected FAMILY.OPTION=V1,V2,... such as mimalloc.eager_commit_delay=0,1,4");
  }
  TuneOption o;
  o.family = util::to_lower(text.substr(0, dot));
  o.key = util::to_lower(text.substr(dot + 1, eq - dot - 1));
  for (const auto& v : util::split(text.substr(eq + 1), ','))
    if (!v.empty()) o.values.push_back(v);
  // A sweep varies the options of the allocator it runs; fallback tunables apply to none.
  const alloc::Family* family = alloc::find_family(o.family);
  if (!family || family->fallback) {
    std::vector<std::string> families;
    for (const auto& f : alloc::families())
      if (!f.fallback) families.emplace_back(f.name);
    return util::fail("unknown allocator family '" + o.family + "' (" + util::join(families, ", ") + ")");
  }
  if (o.values.empty()) return util::fail("no values after '='");
  return o;
}

std::string toml_value(const std::string& v) {
  if (v == "true" || v == "false") return v;
  long long i;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), i);
  if (ec == std::errc() && p == v.data() + v.size()) return v;
  double d;
  auto [p2, ec2] = std::from_chars(v.data(), v.data() + v.size(), d);
  if (ec2 == std::errc() && p2 == v.data() + v.size() && v.find_first_of("0123456789") != std::string::npos &&
      v.find_first_not_of("0123456789.eE+-") == std::string::npos && std::isfinite(d))
    return v.find_first_of(".eE") == std::string::npos ? v : (v[0] == '.' ? "0" + v : v);
  std::string out = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string profile_toml(const std::string& allocator, const std::map<std::string, std::map<std::string, std::string>>& options) {
  std::string s = "allocator = " + toml_value(allocator) + "\n";
  for (const auto& [family, kv] : options) {
    if (kv.empty()) continue;
    s += "\n[" + family + "]\n";
    for (const auto& [k, v] : kv) s += k + " = " + toml_value(v) + "\n";
  }
  return s;
}

Evidence judge(const std::optional<stats::MannWhitney>& test, const std::optional<stats::Interval>& ci) {
  Evidence e;
  if (!test || std::isnan(test->p)) {
    e.why = "no successful runs to compare";
    return e;
  }
  e.p = test->p;
  e.ci = ci;
  bool p_ok = test->p < kAlpha;
  bool ci_ok = ci && !std::isnan(ci->hi) && ci->hi < 1;
  e.faster = p_ok && ci_ok;
  char p[64];
  std::snprintf(p, sizeof p, "p %.4f %s %.2f", test->p, p_ok ? "<" : "not <", kAlpha);
  e.why = p;
  if (ci) e.why += ", CI " + util::fixed(ci->lo, 3) + "-" + util::fixed(ci->hi, 3) + (ci_ok ? " < 1" : " not < 1");
  return e;
}

Evidence weigh(const std::vector<double>& candidate, const std::vector<double>& current, uint64_t seed, int resamples) {
  if (candidate.empty() || current.empty()) return judge(std::nullopt, std::nullopt);
  auto test = stats::mann_whitney_u(candidate, current, stats::Alternative::less);
  auto ci = stats::bootstrap_median_ratio(current, candidate, 0.95, resamples, seed);
  return judge(test, ci);
}

double smallest_p(std::size_t n, std::size_t m) {
  // 1 / C(n+m, n), as a product so that large sizes do not overflow.
  double p = 1;
  for (std::size_t i = 1; i <= std::min(n, m); ++i) p *= double(i) / double(std::max(n, m) + i);
  return p;
}

bool Budget::holds(const Candidate& c) const {
  // Written as "not over" would let NaN through; `<=` is false for NaN.
  if (max_rss_ratio && !(c.rss_ratio <= *max_rss_ratio)) return false;
  if (max_vm_ratio && !(c.vm_ratio <= *max_vm_ratio)) return false;
  return true;
}

std::string Budget::describe() const {
  std::string s;
  if (max_rss_ratio) s = "peak RSS <= " + util::fixed(*max_rss_ratio, 2) + "x baseline";
  if (max_vm_ratio) s += (s.empty() ? "" : " and ") + std::string("peak virtual size <= ") + util::fixed(*max_vm_ratio, 2) + "x baseline";
  return s.empty() ? "none" : s;
}

std::string Budget::over(const Candidate& c) const {
  std::vector<std::string> why;
  auto check = [&](const std::optional<double>& limit, double r, const char* what, const char* unknown) {
    if (!limit || r <= *limit) return;
    why.push_back(std::isnan(r) ? std::string(what) + " unknown (" + unknown + ")"
                                : std::string(what) + " " + util::fixed(r, 3) + "x > " + util::fixed(*limit, 2) + "x");
  };
  check(max_rss_ratio, c.rss_ratio, "peak RSS", "no successful run");
  check(max_vm_ratio, c.vm_ratio, "peak virtual size", "no VmPeak from the probe");
  return util::join(why, "; ");
}

double Budget::excess(const Candidate& c) const {
  double over = 0;
  auto take = [&](const std::optional<double>& limit, double r) {
    if (limit) over += std::isnan(r) ? std::numeric_limits<double>::infinity() : std::max(0.0, r / *limit - 1);
  };
  take(max_rss_ratio, c.rss_ratio);
  take(max_vm_ratio, c.vm_ratio);
  return over;
}

std::optional<std::size_t> choose(const std::vector<Candidate>& cands, const Budget& budget, bool& within) {
  auto usable = [&](std::size_t i) { return cands[i].ok > 0 && !std::isnan(cands[i].median_s); };
  auto fits = [&](std::size_t i) { return budget.holds(cands[i]); };
  std::optional<std::size_t> best;
  bool current_ok = !cands.empty() && usable(0);
  bool memory_decides = !current_ok || !fits(0);
  for (std::size_t i = 1; i < cands.size(); ++i) {
    if (!usable(i) || !fits(i)) continue;
    if (!memory_decides && !cands[i].vs_current.faster) continue;
    if (!best || cands[i].median_s < cands[*best].median_s) best = i;
  }
  if (!best && memory_decides) {
    // Nothing fits: the step moves towards the budget when a candidate is clearly closer.
    // `least` is the distance to beat: the current setting's, less the noise margin, then the best so far.
    double least = current_ok ? budget.excess(cands[0]) - kCloserBy : std::numeric_limits<double>::infinity();
    for (std::size_t i = 1; i < cands.size(); ++i) {
      if (!usable(i)) continue;
      double e = budget.excess(cands[i]);
      bool tie_faster = best && e == least && cands[i].median_s < cands[*best].median_s;
      if (e < least || tie_faster) best = i, least = e;
    }
  }
  if (!best && current_ok) best = 0;
  within = best && fits(*best);
  return best;
}

}  // namespace bench
