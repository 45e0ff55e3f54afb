#include "bench/outputs.hpp"

#include <algorithm>
#include <set>

#include "util/fs.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"

namespace bench {

std::string filter_lines(std::string_view text, const std::regex& filter) {
  std::string out;
  out.reserve(text.size());
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t nl = text.find('\n', start);
    std::size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    std::string_view line = text.substr(start, end - start);
    std::string_view body = line.substr(0, line.size() - (nl == std::string_view::npos ? 0 : 1));
    if (!std::regex_search(body.begin(), body.end(), filter)) out.append(line);
    start = end;
  }
  return out;
}

std::string hash_output(const std::string& path, const std::regex* filter) {
  auto data = util::read_file(path, std::size_t(4) << 30);
  if (!data) return kMissing;
  return util::sha256_hex(filter ? filter_lines(*data, *filter) : *data);
}

std::vector<std::string> output_names(const Spec& spec) {
  std::vector<std::string> names;
  if (!spec.compare) return names;
  if (spec.compare_stdout) names.push_back("stdout");
  for (const auto& f : spec.compare_outputs)
    if (std::find(names.begin(), names.end(), f) == names.end()) names.push_back(f);
  return names;
}

const char* kind_name(OutputVerdict::Kind k) {
  return k == OutputVerdict::identical ? "identical" : k == OutputVerdict::varies ? "varies" : "missing";
}

std::map<std::string, std::string> single_contents(const BenchResult& o, int arm) {
  std::map<std::string, std::set<std::string>> seen;
  for (const auto& r : o.runs)
    if (r.arm == arm && r.ok)
      for (const auto& [name, h] : r.hashes) seen[name].insert(h);
  std::map<std::string, std::string> out;
  for (const auto& [name, set] : seen)
    if (set.size() == 1) out[name] = *set.begin();
  return out;
}

std::map<std::string, OutputVerdict> output_verdicts(const BenchResult& o, int arm,
                                                     const std::map<std::string, std::string>* first_single) {
  std::map<std::string, std::set<std::string>> seen;
  std::map<std::string, OutputVerdict> out;
  for (const auto& r : o.runs) {
    if (r.arm != arm || !r.ok) continue;
    for (const auto& [name, h] : r.hashes) {
      seen[name].insert(h);
      if (h == kMissing) ++out[name].missing_runs;
      else out[name];
    }
  }
  auto mine = single_contents(o, arm);
  for (auto& [name, v] : out) {
    const auto& set = seen[name];
    v.distinct = set.size();
    v.kind = set.size() > 1 ? OutputVerdict::varies : *set.begin() == kMissing ? OutputVerdict::missing
                                                                                 : OutputVerdict::identical;
    if (first_single) {
      auto f = first_single->find(name);
      auto m = mine.find(name);
      if (f != first_single->end() && m != mine.end()) v.same_as_first = f->second == m->second;
    }
  }
  return out;
}

std::string outputs_summary(const std::map<std::string, OutputVerdict>& verdicts, bool first_arm) {
  std::vector<std::string> differs, varies, missing;
  for (const auto& [name, v] : verdicts) {
    if (v.kind == OutputVerdict::varies) varies.push_back(name);
    else if (v.kind == OutputVerdict::missing) missing.push_back(name);
    if (v.same_as_first == false) differs.push_back(name);
  }
  std::string s;
  auto add = [&](const char* what, const std::vector<std::string>& names) {
    if (!names.empty()) s += (s.empty() ? "" : "; ") + std::string(what) + util::join(names, ", ");
  };
  add("differs: ", differs);
  add("varies between runs: ", varies);
  add("missing: ", missing);
  if (s.empty()) s = first_arm ? "reference" : "identical";
  return s;
}

std::string verdict_cell(const OutputVerdict& v) {
  std::string s;
  switch (v.kind) {
    case OutputVerdict::identical: s = "identical"; break;
    case OutputVerdict::varies: s = "varies (" + std::to_string(v.distinct) + " contents)"; break;
    case OutputVerdict::missing: s = "missing"; break;
  }
  if (v.kind == OutputVerdict::varies && v.missing_runs)
    s += ", missing in " + std::to_string(v.missing_runs) + " runs";
  if (v.same_as_first) s += *v.same_as_first ? ", as first arm" : ", differs from first arm";
  return s;
}

}  // namespace bench
