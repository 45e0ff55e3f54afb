#include "util/table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace util {
namespace {

// Display width in terminal cells: UTF-8 continuation bytes take none.
std::size_t width(const std::string& s) {
  return std::size_t(std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

}  // namespace

std::string render_text(const Table& t) {
  std::vector<std::size_t> w(t.headers.size(), 0);
  for (std::size_t c = 0; c < t.headers.size(); ++c) w[c] = width(t.headers[c]);
  for (const auto& row : t.rows)
    for (std::size_t c = 0; c < row.size() && c < w.size(); ++c) w[c] = std::max(w[c], width(row[c]));
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t c = 0; c < w.size(); ++c) {
      std::string cell = c < cells.size() ? cells[c] : "";
      std::string pad(w[c] - width(cell), ' ');
      bool right = c < t.right_aligned.size() && t.right_aligned[c];
      out += right ? pad + cell : cell + (c + 1 < w.size() ? pad : "");
      if (c + 1 < w.size()) out += "  ";
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(t.headers);
  std::size_t total = 0;
  for (auto x : w) total += x;
  out += std::string(total + 2 * (w.empty() ? 0 : w.size() - 1), '-') + "\n";
  for (const auto& row : t.rows) out += line(row);
  return out;
}

std::string render_markdown(const Table& t) {
  auto esc = [](const std::string& s) {
    std::string o;
    for (char c : s) {
      if (c == '|') o += "\\|";
      else if (c == '\n') o += ' ';
      else o += c;
    }
    return o;
  };
  // Appended piecewise: " " + std::string&& trips a false -Wrestrict in gcc 12.
  std::string out = "|";
  for (const auto& h : t.headers) {
    out += ' ';
    out += esc(h);
    out += " |";
  }
  out += "\n|";
  for (std::size_t c = 0; c < t.headers.size(); ++c)
    out += (c < t.right_aligned.size() && t.right_aligned[c]) ? "---:|" : "---|";
  out += "\n";
  for (const auto& row : t.rows) {
    out += "|";
    for (std::size_t c = 0; c < t.headers.size(); ++c) {
      out += ' ';
      out += esc(c < row.size() ? row[c] : "");
      out += " |";
    }
    out += "\n";
  }
  return out;
}

std::string csv_cell(const std::string& cell) {
  if (cell.find_first_of(",\"\r\n") == std::string::npos) return cell;
  std::string o = "\"";
  for (char c : cell) {
    if (c == '"') o += '"';
    o += c;
  }
  return o + "\"";
}

std::string render_csv(const Table& t) {
  auto line = [](const std::vector<std::string>& cells, std::size_t n) {
    std::string o;
    for (std::size_t c = 0; c < n; ++c) {
      if (c) o += ',';
      o += csv_cell(c < cells.size() ? cells[c] : "");
    }
    return o + "\n";
  };
  std::string out = line(t.headers, t.headers.size());
  for (const auto& row : t.rows) out += line(row, t.headers.size());
  return out;
}

std::string fixed(double value, int digits) {
  if (std::isnan(value)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, value);
  return buf;
}

}  // namespace util
