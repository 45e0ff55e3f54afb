#pragma once
#include <map>
#include <string>

namespace commands {
// `edashim profiles`: the named profiles that can be selected here, and where each is defined.
int list_profiles();
// The named profiles that can be selected here: name -> where it is defined (file, or file:line).
std::map<std::string, std::string> available_profiles();
}
