#pragma once
// What any SVG drawing needs of text and axes: escaping text from anywhere, and round ticks.
// Shared by bench's plots and report's flow timeline.
#include <string>
#include <string_view>
#include <vector>

namespace util {

// Text from anywhere (a log another program wrote) as XML character data or an attribute
// value: control characters and invalid UTF-8 as printable's \xNN, the characters XML
// forbids (U+FFFE, U+FFFF) likewise, and < > & " ' as entities.
std::string xml_text(std::string_view text);

// Round tick positions covering [lo, hi] (steps of 1, 2 or 5 times a power of ten).
std::vector<double> nice_ticks(double lo, double hi, int target = 6);

}  // namespace util
