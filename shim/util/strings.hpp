#pragma once
// Small text helpers with no knowledge of edashim.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace util {

// Splits on one separator; empty fields are kept ("a::b" -> {"a","","b"}).
std::vector<std::string> split(std::string_view text, char sep);

std::string join(const std::vector<std::string>& parts, std::string_view sep);

std::string to_lower(std::string_view text);

bool starts_with(std::string_view text, std::string_view prefix);

// Edit distance, for "did you mean" suggestions.
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word`, if it is near enough to be a plausible typo.
std::optional<std::string> nearest(std::string_view word, const std::vector<std::string>& candidates);

// A switch value: true/false for the clear spellings (1/0, on/off, yes/no, true/false,
// case-insensitive), nullopt for anything else. ccache users were bitten by CCACHE_DISABLE=0
// meaning "disabled"; we accept only spellings nobody can misread and reject the rest.
std::optional<bool> parse_switch(std::string_view text);

// Quotes a string for a POSIX shell when it needs it, for messages users may copy.
std::string shell_quote(std::string_view text);

// Tab-separated records (the fact cache, the probe's records): backslash, tab and newline are
// written as \\, \t, \n. Unescaping returns nullopt for anything else after a backslash.
std::string tsv_escape(std::string_view text);
std::optional<std::string> tsv_unescape(std::string_view text);

// `text` safe to print on a terminal: C0 controls, DEL, C1 controls (U+0080-U+009F: some
// terminals read U+009B as CSI) and bytes that are not valid UTF-8 written as \xNN, so text read
// from a log or an experiment another user wrote cannot move the cursor, recolour or hide what
// follows it. Printable text, UTF-8 included, is unchanged.
std::string printable(std::string_view text);

// 2026-11-30T13:16:06.216Z for seconds since the epoch. Computed here, not with gmtime_r:
// glibc loads /etc/localtime on the first gmtime_r of a process, for a zone UTC never needs.
std::string iso_time_utc(double epoch_seconds);

// Length of the well-formed UTF-8 sequence at s[i] (RFC 3629: no overlongs, no surrogates,
// nothing above U+10FFFF), or 0.
size_t utf8_length(std::string_view s, size_t i);

}  // namespace util
