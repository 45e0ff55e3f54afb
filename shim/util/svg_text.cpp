#include "util/svg_text.hpp"

#include <cstdio>
#include <cmath>

#include "util/strings.hpp"

namespace util {

std::string xml_text(std::string_view text) {
  std::string clean = printable(text), out;
  out.reserve(clean.size());
  for (std::size_t i = 0; i < clean.size(); ++i) {
    char c = clean[i];
    // U+FFFE and U+FFFF (EF BF BE, EF BF BF) are not XML characters: a parser stops at them.
    if (c == '\xEF' && i + 2 < clean.size() && clean[i + 1] == '\xBF' && (clean[i + 2] == '\xBE' || clean[i + 2] == '\xBF')) {
      out += clean[i + 2] == '\xBE' ? "\\xEF\\xBF\\xBE" : "\\xEF\\xBF\\xBF";
      i += 2;
      continue;
    }
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string svg_coord(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  std::vector<double> out;
  if (!(hi > lo)) return {lo};
  double raw = (hi - lo) / target;
  double mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * mag) {
      step = m * mag;
      break;
    }
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push_back(std::fabs(t) < step * 1e-9 ? 0 : t);
  return out;
}

}  // namespace util
