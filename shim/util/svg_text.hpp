#pragma once
// What any SVG drawing needs of text and axes: escaping text from anywhere, and round ticks.
// Shared by bench's plots and report's flow timeline.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace util {

// Text from anywhere (a log another program wrote) as XML character data or an attribute
// value: control characters and invalid UTF-8 as printable's \xNN, the characters XML
// forbids (U+FFFE, U+FFFF) likewise, and < > & " ' as entities.
std::string xml_text(std::string_view text);

// The colours of a drawing's series, in order (the first is the reference's), one palette for
// every plot; the i-th series takes kPalette[i % kPaletteSize].
inline constexpr const char* kPalette[] = {"#4C72B0", "#DD8452", "#55A868", "#C44E52",
                                           "#8172B3", "#937860", "#DA8BC3", "#8C8C8C"};
inline constexpr std::size_t kPaletteSize = sizeof kPalette / sizeof kPalette[0];

// A coordinate or length as an SVG attribute: one decimal (a tenth of a pixel is below sight).
std::string svg_coord(double v);

// Round tick positions covering [lo, hi] (steps of 1, 2 or 5 times a power of ten).
std::vector<double> nice_ticks(double lo, double hi, int target = 6);

}  // namespace util
