// runlog/tree_peak.cpp: a run's peak virtual size covers its child runs' (issue 38 item 1: the
// current arm's ABC ran as a routed run of its own and its peak was left out of yosys').
#include <catch2/catch.hpp>

#include "runlog/tree_peak.hpp"

namespace {
runlog::RunRecord run(const char* id, const char* parent, std::optional<double> peak) {
  runlog::RunRecord r;
  r.run_id = id;
  r.parent_run = parent;
  r.vm_peak_kb = peak;
  return r;
}
}  // namespace

TEST_CASE("TreePeaks: a parent's peak is the largest of its tree's, children before it") {
  runlog::TreePeaks tree;
  CHECK(tree.fold(run("abc1", "top", 900)) == 900);
  CHECK(tree.fold(run("grandchild", "abc2", 1500)) == 1500);
  CHECK(tree.fold(run("abc2", "top", 300)) == 1500);  // its own child's, at any depth
  CHECK(tree.fold(run("top", "", 1000)) == 1500);
  // Folded once: the next run of another tree starts afresh.
  CHECK(tree.fold(run("next", "", 200)) == 200);
}

TEST_CASE("TreePeaks: unknown stays unknown, and a parent without a figure takes its children's") {
  runlog::TreePeaks tree;
  CHECK_FALSE(tree.fold(run("lone", "", std::nullopt)).has_value());
  CHECK(tree.fold(run("child", "p", 700)) == 700);
  CHECK(tree.fold(run("p", "", std::nullopt)) == 700);
  // A smaller child does not lower the parent's own.
  CHECK(tree.fold(run("small", "q", 10)) == 10);
  CHECK(tree.fold(run("q", "", 50)) == 50);
  // Runs of other trees, or with no parent, leave a parent alone.
  CHECK(tree.fold(run("other", "elsewhere", 5000)) == 5000);
  CHECK(tree.fold(run("r", "", 60)) == 60);
}
