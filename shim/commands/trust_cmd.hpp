#pragma once
#include <string>

namespace commands {
// `edashim trust [FILE]` / `edashim untrust [FILE]`: FILE defaults to the nearest .edashim.toml.
int trust(const std::string& file, bool untrust);
}
