#pragma once
// The learned layer as config::load takes it: learned.toml read through learn/ (its format is
// learn/'s alone) and handed over as plain data, so config/ knows nothing of the file.
#include <functional>
#include <string>

#include "config/load.hpp"

namespace util {
class FactCache;
}

namespace pipeline {

// learned.toml's choice for `tool` on this CPU model (`cpu_model`; empty: util::cpu_model(facts)),
// the first one listed: nullopt when none is learned (or no file yet); the reason, ending in what
// happens instead, when the file cannot be used. A choice whose binary changed or whose arm is
// not one a config file could set comes back with `unusable` saying so.
config::LearnedRead read_learned_choice(const std::string& file, const std::string& tool, const std::string& cpu_model,
                                        util::FactCache* facts);

// read_learned_choice as LoadRequest::read_learned: called only once adopt is on.
std::function<config::LearnedRead()> learned_reader(const std::string& file, const std::string& tool,
                                                    const std::string& cpu_model, util::FactCache* facts);

}  // namespace pipeline
