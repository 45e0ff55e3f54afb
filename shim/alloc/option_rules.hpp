#pragma once
// The option rules of each family (grammar by version, restricted names, advice for a wrong
// name): defined in alloc/options.cpp, which alone knows their shape, and named by the family's
// entry in alloc/registry.cpp.
namespace alloc {

struct OptionRules;

extern const OptionRules kMimallocOptions;
extern const OptionRules kJemallocOptions;
extern const OptionRules kTcmallocOptions;
extern const OptionRules kTbbmallocOptions;
extern const OptionRules kGlibcOptions;

}  // namespace alloc
