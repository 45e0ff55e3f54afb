#pragma once
namespace commands {
// `edashim profiles`: the named profiles that can be selected here, and where each is defined.
int list_profiles();
}
