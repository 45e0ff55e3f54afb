#include "pipeline/learned_layer.hpp"

#include "learn/learned.hpp"
#include "util/machine.hpp"
#include "util/owned_file.hpp"
#include "util/strings.hpp"

namespace pipeline {

namespace {

// Entry `e` as config::load applies it, or with why it no longer may.
config::LearnedChoice choice_of(const learn::Learned& e) {
  config::LearnedChoice choice;
  choice.line = e.line;
  choice.binary = e.binary.path;
  choice.summary = learn::describe(e);
  choice.date = e.date;
  auto now = learn::identity_of(e.binary.path);
  if (!now || !(*now == e.binary)) {
    choice.unusable = "ignored: " + e.binary.path +
                      (now ? " changed since it was learned (size or time differ)" : " is gone") +
                      "; report --recommend decides again from the new binary's runs";
    return choice;
  }
  // The same check as an arm read from a log (learn::arm_problem): learned.toml is written
  // from logs, which may hold other users' lines.
  if (auto bad = learn::arm_problem(e.arm); !bad.empty()) {
    choice.unusable = "ignored: '" + util::printable(e.arm) + "' " + bad;
    return choice;
  }
  auto parts = learn::parse_arm(e.arm);
  choice.allocator = parts->allocator;
  choice.options = parts->options;
  return choice;
}

}  // namespace

config::LearnedRead read_learned_choice(const std::string& file, const std::string& tool, const std::string& cpu_model,
                                        util::FactCache* facts) {
  const config::LearnedRead none{std::nullopt};
  // The learned file decides what runs when adopt is on: held to the owned-file rule.
  auto text = util::read_owned(file, util::SharedDirs::none(), 1 << 20);
  if (text.absent) return none;  // none learned yet
  if (!text.ok()) return util::fail(text.why() + " (no learned choice is used)");
  auto entries = learn::parse_learned(text.content, file);
  if (!entries) return util::fail(entries.error() + " (no learned choice is used; edashim forget rewrites it)");
  std::string cpu;  // read only when the tool has an entry
  for (const auto& e : *entries) {
    if (e.tool != tool) continue;
    if (cpu.empty()) cpu = cpu_model.empty() ? util::cpu_model(facts).value_or("") : cpu_model;
    if (e.cpu == cpu) return std::optional(choice_of(e));
  }
  return none;
}

std::function<config::LearnedRead()> learned_reader(const std::string& file, const std::string& tool,
                                                    const std::string& cpu_model, util::FactCache* facts) {
  return [=] { return read_learned_choice(file, tool, cpu_model, facts); };
}

}  // namespace pipeline
