#pragma once
// The key of "same work": a tool's command line with what changes from run to run of the same
// flow (output paths, temporary names, the design's directory) normalised away, and the
// contents of the scripts it names hashed in. Pure: files are read through the caller's reader.
// The rule is documented in the README ("Same work").
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace learn {

struct SignatureInput {
  std::string tool;                    // the name the tool was invoked as ("yosys")
  std::vector<std::string> argv;       // argv[0] included (it is not part of the signature)
  std::vector<std::string> temp_dirs;  // TMPDIR, /tmp, /var/tmp, /dev/shm: names under them are "<tmp>"
  // A script's contents (nullopt: unreadable); a relative path is relative to the tool's cwd.
  std::function<std::optional<std::string>(const std::string& path)> read;
};

struct Signature {
  std::string text;  // the normalised command: "yosys -s <script:0123456789abcdef> -o <out> top.v"
  std::string hex;   // the first 64 bits of the SHA-256 of `text`, as 16 hex digits
};

Signature signature(const SignatureInput& in);

// Whether `path` lies under one of `temp_dirs` or has a name mktemp would make: "<tmp>".
bool is_temporary(const std::string& path, const std::vector<std::string>& temp_dirs);

// `text` with every path under `temp_dirs` replaced by "<tmp>" (a script yosys writes for abc
// names its own temporary directory, different in every run).
std::string without_temporary_paths(const std::string& text, const std::vector<std::string>& temp_dirs);

}  // namespace learn
