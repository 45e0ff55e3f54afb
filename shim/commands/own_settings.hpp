#pragma once
// The user's own configuration, without the current directory's project files.
#include <string>

#include "config/settings.hpp"

namespace commands {

// The shipped, system and user files (and the learned layer, with adopt on), for `tool` or for
// no tool in particular: what a command's safety rests on (shared_dirs, farm_edashim) and what
// recommend weighs a learned choice against. A cloned repository's file has no say in either.
config::Settings own_settings(const std::string& tool = "");

}  // namespace commands
