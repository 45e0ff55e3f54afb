#pragma once
// Exploration on a run (`explore = 0.1`): with that probability, the run uses a candidate of
// `explore_profiles` instead of the current choice, and its log line says so. The decision's
// rules are learn/explore.hpp; this draws the random numbers and re-plans with the candidate.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "pipeline/plan.hpp"

namespace pipeline {

// 64 random bits.
using RandomSource = std::function<uint64_t()>;

// getrandom(2): a few hundred nanoseconds, no file opened; never blocks (the pool is ready
// long before a tool runs; if not, the clock and pid stand in: a draw needs no secrecy).
uint64_t system_random();

// Why `plan` cannot explore ("" when it may), from its settings, the environment and the pre-flight.
std::string why_not_explore(const Plan& plan, const std::vector<std::string>& env);

// Replaces `plan` with a candidate's when this run draws exploration; the candidate order is a
// uniform draw among those whose arm (Plan::arm) differs from the current one (a candidate whose
// library is missing or whose profile has errors is passed over). Returns true when it explores.
bool maybe_explore(Plan& plan, const paths::Files& files, const std::vector<std::string>& env,
                   const RandomSource& random = system_random);

}  // namespace pipeline
