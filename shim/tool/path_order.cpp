#include "tool/path_order.hpp"

#include "util/strings.hpp"

namespace tool {

OrderReport analyse_order(const std::vector<Found>& found) {
  OrderReport r;
  for (const auto& f : found)
    if (!f.edashim) {
      r.real = f.path;
      break;
    }
  if (!found.empty()) r.runs_now = found.front().path;
  bool ours = false;
  for (const auto& f : found) ours = ours || (f.in_shim_dir && f.edashim);
  if (!ours) {
    r.order = Order::NotOnPath;
    return r;
  }
  const Found& first = found.front();
  if (!first.edashim) r.order = Order::Shadowed;
  else if (!first.in_shim_dir) r.order = Order::OtherEdashim;
  else if (r.real.empty()) r.order = Order::NoRealTool;
  else r.order = Order::Ok;
  return r;
}

std::string path_line(const std::string& shell, const std::string& dir) {
  std::string q = util::shell_quote(dir);
  if (shell == "fish") return "contains -- " + q + " $PATH; or set -gx PATH " + q + " $PATH";
  // bash and zsh: prepend once, so nested shells do not grow PATH.
  return "case \":$PATH:\" in *:" + q + ":*) ;; *) export PATH=" + q + ":\"$PATH\" ;; esac";
}

}  // namespace tool
