#pragma once
// Which files of a directory `edashim report --log DIR` reads: a farm's per-host logs
// (node1.jsonl, node2.jsonl) and their rotated predecessors (node1.jsonl.1, ...).
#include <string>
#include <string_view>
#include <vector>

namespace report {

// NAME.jsonl or NAME.jsonl.N (N digits: what runlog/append.cpp's rotation leaves), NAME not empty.
bool is_log_file_name(std::string_view name);

// The names of `entries` that are run logs, sorted (byte order: the same on every machine).
std::vector<std::string> log_file_names(std::vector<std::string> entries);

}  // namespace report
