#pragma once
// A table of strings rendered for a terminal, as Markdown or as CSV: the three text outputs
// of report, bench and tune share one renderer so their formats cannot drift apart.
#include <string>
#include <vector>

namespace util {

struct Table {
  std::vector<std::string> headers;
  std::vector<bool> right_aligned;  // per column; numbers read better right-aligned
  std::vector<std::vector<std::string>> rows;
};

// Columns padded to their widest cell, two spaces apart, a rule under the header.
std::string render_text(const Table& t);
// GitHub-flavoured Markdown; '|' in cells escaped.
std::string render_markdown(const Table& t);
// RFC 4180 quoting (lines end in \n): cells with a comma, quote or line break are quoted, quotes doubled.
std::string render_csv(const Table& t);
std::string csv_cell(const std::string& cell);

// Fixed-point number with `digits` decimals; "-" for NaN.
std::string fixed(double value, int digits);

}  // namespace util
