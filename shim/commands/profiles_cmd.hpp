#pragma once
#include <map>
#include <string>

namespace commands {
// `edashim profiles`: the named profiles that can be selected here, and where each is defined.
int list_profiles();
// What a profile file says of itself: its leading comment block, joined into one line, without a
// "NAME: " prefix (the listing shows the name already). "" when the file starts with a key.
std::string profile_summary(const std::string& name, const std::string& text);
// The named profiles that can be selected here: name -> where it is defined (file, or file:line).
std::map<std::string, std::string> available_profiles();
}
