#include "bench/svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "stats/bootstrap.hpp"
#include "stats/summary.hpp"
#include "util/strings.hpp"

namespace bench {
namespace {


// Text from anywhere (a command line, a profile's name) escaped the one way (util/svg_text).
std::string esc(const std::string& s) { return util::xml_text(s); }

std::string f(double v) { return util::svg_coord(v); }

std::string num_label(double v) {
  char buf[32];
  double a = std::fabs(v);
  std::snprintf(buf, sizeof buf, a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3g", v);
  return buf;
}

struct Axis {
  double lo, hi, x0, x1;
  double map(double v) const { return hi > lo ? x0 + (v - lo) / (hi - lo) * (x1 - x0) : (x0 + x1) / 2; }
};

Axis axis_for(const std::vector<double>& all, double x0, double x1) {
  double lo = all.empty() ? 0 : *std::min_element(all.begin(), all.end());
  double hi = all.empty() ? 1 : *std::max_element(all.begin(), all.end());
  double pad = (hi - lo) * 0.08;
  if (pad <= 0) pad = std::max(std::fabs(hi) * 0.05, 1e-6);
  return {lo - pad, hi + pad, x0, x1};
}

// One panel: a row per arm, values as dots, optional density, median bar, axis with ticks.
enum class Figure { wall, rss, vm };

// A run's figures for a panel: seconds, or MB.
std::vector<double> values(const ArmStats& a, Figure fig) {
  if (fig == Figure::wall) return a.wall;
  std::vector<double> mb;
  for (double kb : fig == Figure::rss ? a.rss_kb : a.vm_kb) mb.push_back(kb / 1024);
  return mb;
}

std::string panel(const std::vector<ArmStats>& arms, Figure fig, double top, double row_h, double left, double right,
                  const std::string& heading, const std::vector<double>& judged) {
  const bool times = fig == Figure::wall;
  std::vector<double> all;
  for (const auto& a : arms)
    for (double v : values(a, fig)) all.push_back(v);
  Axis ax = axis_for(all, left, right);
  std::string s;
  s += "<text x='" + f(left) + "' y='" + f(top - 10) + "' class='h'>" + esc(heading) + "</text>\n";
  double bottom = top + row_h * double(arms.size());
  auto ticks = util::nice_ticks(ax.lo, ax.hi);
  for (double t : ticks) {
    if (t < ax.lo || t > ax.hi) continue;
    double x = ax.map(t);
    s += "<line x1='" + f(x) + "' y1='" + f(top) + "' x2='" + f(x) + "' y2='" + f(bottom) + "' class='grid'/>\n";
    s += "<text x='" + f(x) + "' y='" + f(bottom + 16) + "' class='tick'>" + num_label(t) + "</text>\n";
  }
  s += "<line x1='" + f(left) + "' y1='" + f(bottom) + "' x2='" + f(right) + "' y2='" + f(bottom) + "' class='axis'/>\n";
  for (std::size_t a = 0; a < arms.size(); ++a) {
    const auto& arm = arms[a];
    const char* color = util::kPalette[a % util::kPaletteSize];
    double y0 = top + row_h * double(a), mid = y0 + row_h / 2;
    if (a % 2 == 1)
      s += "<rect x='" + f(left) + "' y='" + f(y0) + "' width='" + f(right - left) + "' height='" + f(row_h) +
           "' fill='#f4f4f4'/>\n";
    std::vector<double> vals = values(arm, fig);
    if (times && vals.size() >= 2) {
      std::vector<double> at;
      for (int i = 0; i <= 200; ++i) at.push_back(ax.lo + (ax.hi - ax.lo) * i / 200.0);
      auto d = density(vals, at);
      double peak = *std::max_element(d.begin(), d.end());
      if (peak > 0) {
        std::string path = "M" + f(ax.map(at.front())) + "," + f(y0 + row_h - 2);
        for (std::size_t i = 0; i < at.size(); ++i)
          path += " L" + f(ax.map(at[i])) + "," + f(y0 + row_h - 2 - d[i] / peak * (row_h * 0.8));
        path += " L" + f(ax.map(at.back())) + "," + f(y0 + row_h - 2) + " Z";
        s += "<path d='" + path + "' fill='" + color + "' fill-opacity='0.22' stroke='" + color + "' stroke-width='1'/>\n";
      }
    }
    // Deterministic jitter: the same runs draw the same picture.
    stats::SplitMix64 rng(a + 1);
    for (double v : vals) {
      double jitter = (double(rng.next() >> 11) / 9007199254740992.0 - 0.5) * row_h * 0.45;
      s += "<circle cx='" + f(ax.map(v)) + "' cy='" + f(mid + jitter) + "' r='3.2' fill='" + color +
           "' fill-opacity='0.75'><title>" + num_label(v) + (times ? " s" : " MB") + "</title></circle>\n";
    }
    if (!vals.empty()) {
      double med = stats::median(vals);
      double x = ax.map(med);
      s += "<line x1='" + f(x) + "' y1='" + f(y0 + 4) + "' x2='" + f(x) + "' y2='" + f(y0 + row_h - 4) +
           "' stroke='#222' stroke-width='2.5'/>\n";
      double r = !times ? (fig == Figure::rss ? arm.rss_ratio : arm.vm_ratio) : a < judged.size() ? judged[a] : arm.median_ratio;
      std::string label = num_label(med) + (times ? " s" : " MB") + (a > 0 ? "  " + ratio(r) : "");
      s += "<text x='" + f(left - 10) + "' y='" + f(mid - 2) + "' class='arm' fill='" + color + "'>" + esc(arm.name) +
           "</text>\n";
      s += "<text x='" + f(left - 10) + "' y='" + f(mid + 13) + "' class='sub'>median " + esc(label) + "</text>\n";
    } else {
      s += "<text x='" + f(left - 10) + "' y='" + f(mid + 4) + "' class='arm' fill='" + color + "'>" + esc(arm.name) +
           (arm.ok == 0 ? " (no successful run)" : " (no figure)") + "</text>\n";
    }
  }
  return s;
}

const char* kStyle =
    "<style>text{font-family:DejaVu Sans,Arial,Helvetica,sans-serif;fill:#222}"
    ".t{font-size:16px;font-weight:bold}.st{font-size:11px;fill:#555}.h{font-size:13px;font-weight:bold}"
    ".tick{font-size:11px;text-anchor:middle;fill:#444}.arm{font-size:13px;font-weight:bold;text-anchor:end}"
    ".sub{font-size:11px;text-anchor:end;fill:#444}.grid{stroke:#ddd;stroke-width:1}.axis{stroke:#444;stroke-width:1}"
    ".lbl{font-size:11px}</style>\n";

}  // namespace

std::vector<double> density(const std::vector<double>& xs, const std::vector<double>& at) {
  std::vector<double> out(at.size(), 0);
  if (xs.empty()) return out;
  double n = double(xs.size());
  double m = stats::mean(xs), var = 0;
  for (double x : xs) var += (x - m) * (x - m);
  double sd = xs.size() > 1 ? std::sqrt(var / (n - 1)) : 0;
  double iqr = stats::quantile(xs, 0.75) - stats::quantile(xs, 0.25);
  double spread = iqr > 0 ? std::min(sd, iqr / 1.34) : sd;
  double bw = 0.9 * spread * std::pow(n, -0.2);
  if (!(bw > 0)) bw = std::max(std::fabs(m) * 0.01, 1e-9);
  const double norm = 1 / (n * bw * std::sqrt(2 * M_PI));
  for (std::size_t i = 0; i < at.size(); ++i) {
    double sum = 0;
    for (double x : xs) {
      double z = (at[i] - x) / bw;
      sum += std::exp(-0.5 * z * z);
    }
    out[i] = sum * norm;
  }
  return out;
}

std::string plot_bench(const std::vector<ArmStats>& arms, const std::string& title, const std::string& subtitle,
                       const std::vector<double>& judged) {
  const double width = 960, left = 250, right = width - 30, row_t = 64, row_m = 40;
  double top1 = 86, bottom1 = top1 + row_t * double(arms.size());
  double top2 = bottom1 + 70, bottom2 = top2 + row_m * double(arms.size());
  // The virtual-size panel below, or a line saying why there is none.
  bool any_vm = false;
  for (const auto& a : arms) any_vm |= !a.vm_kb.empty();
  double top3 = bottom2 + 70, bottom3 = any_vm ? top3 + row_m * double(arms.size()) : bottom2 + 20;
  std::string note = vm_note(arms);
  double height = bottom3 + (note.empty() ? 50 : 70);
  std::string s = "<svg xmlns='http://www.w3.org/2000/svg' width='" + f(width) + "' height='" + f(height) +
                  "' viewBox='0 0 " + f(width) + " " + f(height) + "'>\n";
  s += kStyle;
  s += "<rect width='100%' height='100%' fill='white'/>\n";
  s += "<text x='20' y='26' class='t'>" + esc(title) + "</text>\n";
  s += "<text x='20' y='46' class='st'>" + esc(subtitle) + "</text>\n";
  s += panel(arms, Figure::wall, top1, row_t, left, right, "Wall time per run (s): dots = runs, curve = density, bar = median; ratio: time / the first arm's, "
             "as in the table (below 1: faster)", judged);
  s += panel(arms, Figure::rss, top2, row_m, left, right, "Peak RSS per run (MB)", judged);
  if (any_vm)
    s += panel(arms, Figure::vm, top3, row_m, left, right,
               "Peak virtual size per run (MB): the largest VmPeak over the run's processes", judged);
  if (!note.empty())
    s += "<text x='20' y='" + f(bottom3 + 40) + "' class='st'>Peak virtual size: " + esc(note) + "</text>\n";
  s += "</svg>\n";
  return s;
}

std::string plot_tradeoff(const std::vector<TradeoffPoint>& pts, double budget, const std::string& title) {
  const double width = 760, height = 520, left = 80, right = width - 40, top = 70, bottom = height - 70;
  std::vector<double> xs{1.0}, ys{1.0};
  if (std::isfinite(budget)) xs.push_back(budget);  // NaN: no budget on peak RSS, no line
  for (const auto& p : pts) {
    if (std::isfinite(p.rss_ratio)) xs.push_back(p.rss_ratio);
    if (std::isfinite(p.wall_ratio)) ys.push_back(p.wall_ratio);
  }
  Axis ax = axis_for(xs, left, right);
  Axis ay = axis_for(ys, bottom, top);  // larger ratios further up
  std::string s = "<svg xmlns='http://www.w3.org/2000/svg' width='" + f(width) + "' height='" + f(height) +
                  "' viewBox='0 0 " + f(width) + " " + f(height) + "'>\n";
  s += kStyle;
  s += "<rect width='100%' height='100%' fill='white'/>\n";
  s += "<text x='20' y='28' class='t'>" + esc(title) + "</text>\n";
  s += "<text x='20' y='48' class='st'>lower is faster, left uses less memory; both relative to the baseline profile; "
       "dashed line: RSS budget; VM: peak virtual size / baseline</text>\n";
  for (double t : util::nice_ticks(ax.lo, ax.hi)) {
    if (t < ax.lo || t > ax.hi) continue;
    s += "<line x1='" + f(ax.map(t)) + "' y1='" + f(top) + "' x2='" + f(ax.map(t)) + "' y2='" + f(bottom) + "' class='grid'/>\n";
    s += "<text x='" + f(ax.map(t)) + "' y='" + f(bottom + 16) + "' class='tick'>" + num_label(t) + "</text>\n";
  }
  for (double t : util::nice_ticks(ay.lo, ay.hi)) {
    if (t < ay.lo || t > ay.hi) continue;
    s += "<line x1='" + f(left) + "' y1='" + f(ay.map(t)) + "' x2='" + f(right) + "' y2='" + f(ay.map(t)) + "' class='grid'/>\n";
    s += "<text x='" + f(left - 8) + "' y='" + f(ay.map(t) + 4) + "' class='tick' style='text-anchor:end'>" + num_label(t) +
         "</text>\n";
  }
  s += "<text x='" + f((left + right) / 2) + "' y='" + f(bottom + 40) + "' class='h' style='text-anchor:middle'>peak RSS / baseline</text>\n";
  s += "<text transform='translate(24," + f((top + bottom) / 2) + ") rotate(-90)' class='h' style='text-anchor:middle'>median wall / baseline</text>\n";
  if (std::isfinite(budget))
    s += "<line x1='" + f(ax.map(budget)) + "' y1='" + f(top) + "' x2='" + f(ax.map(budget)) + "' y2='" + f(bottom) +
         "' stroke='#C44E52' stroke-dasharray='6,4' stroke-width='1.5'/>\n";
  s += "<circle cx='" + f(ax.map(1)) + "' cy='" + f(ay.map(1)) + "' r='5' fill='#888'/><text x='" + f(ax.map(1) + 8) + "' y='" +
       f(ay.map(1) - 6) + "' class='lbl'>baseline</text>\n";
  for (const auto& p : pts) {
    if (!std::isfinite(p.rss_ratio) || !std::isfinite(p.wall_ratio)) continue;
    const char* color = p.chosen ? "#55A868" : p.within_budget ? "#4C72B0" : "#C44E52";
    s += "<circle cx='" + f(ax.map(p.rss_ratio)) + "' cy='" + f(ay.map(p.wall_ratio)) + "' r='" + (p.chosen ? "7" : "5") +
         "' fill='" + color + "' fill-opacity='0.85'/>\n";
    s += "<text x='" + f(ax.map(p.rss_ratio) + 9) + "' y='" + f(ay.map(p.wall_ratio) + 4) + "' class='lbl'>" + esc(p.label) +
         (std::isfinite(p.vm_ratio) ? " (VM " + ratio(p.vm_ratio) + ")" : "") + (p.chosen ? " (chosen)" : "") + "</text>\n";
  }
  s += "</svg>\n";
  return s;
}

}  // namespace bench
