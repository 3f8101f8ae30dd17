// Every option declared for [train], [data] and [run] writes its own field of
// the settings the code reads: set alone to a value other than its default, it
// changes that field (read back through the binding) and no other, and the
// defaults the code gets are the declared ones.
#include "catch.h"

#include "data/data_options.h"
#include "recipe/sections.h"
#include "run/run_options.h"
#include "train/train_options.h"

#include <string>

using namespace runner;

namespace {

// A valid value of `spec` other than its default.
nlohmann::json other_value(const OptionSpec& spec) {
  const nlohmann::json& d = spec.default_value;
  switch (spec.type) {
    case OptionType::Bool: return !d.get<bool>();
    case OptionType::Int: {
      long long v = d.get<long long>() + 1;
      return spec.maximum && v > *spec.maximum ? d.get<long long>() - 1 : v;
    }
    case OptionType::Number: return d.get<double>() * 2 + 0.5;
    case OptionType::Choice:
      for (const auto& c : spec.choices)
        if (c != d.get<std::string>()) return c;
      return nullptr;
    case OptionType::StringList: return nlohmann::json::array({"jsonl"});
    case OptionType::NumberList: return nlohmann::json::array({1.0, 2.5});
    default: return d.get<std::string>() + "-changed";
  }
}

template <class Settings>
void check_every_option_writes_its_field(const OptionBinding<Settings>& binding,
                                         const SectionSpec& section) {
  const nlohmann::json defaults = binding.encode(binding.defaults());
  REQUIRE(binding.specs().size() == section.options.size());
  for (const OptionSpec& spec : binding.specs()) {
    INFO(section.name << "." << spec.name);
    CHECK(defaults.at(spec.name) == spec.default_value);
    nlohmann::json changed = other_value(spec);
    REQUIRE(!changed.is_null());
    REQUIRE(changed != spec.default_value);
    nlohmann::json given = defaults;
    given[spec.name] = changed;
    nlohmann::json seen = binding.encode(binding.decode(given));
    for (const auto& [name, value] : seen.items()) {
      INFO("field of " << name);
      CHECK(value == (name == spec.name ? changed : defaults.at(name)));
    }
  }
}

}  // namespace

TEST_CASE("options: every [train] option reaches its TrainerConfig field", "[options]") {
  check_every_option_writes_its_field(train_options(), train_section());
  TrainerConfig c = trainer_config_from({{"precision", "bf16"}, {"nan_policy", "skip"},
                                          {"epochs", 1.5}, {"keep_last", 7}});
  CHECK(c.precision == Precision::Bf16);
  CHECK(c.nan_policy == NanPolicy::Skip);
  CHECK(c.epochs == 1.5);
  CHECK(c.keep_last == 7);
  CHECK(trainer_config_from(nlohmann::json::object()).epochs == 3.0);  // the declared default
  CHECK(precision_name(Precision::Fp16) == "fp16");
}

TEST_CASE("options: every [data] option reaches its DataSettings field", "[options]") {
  check_every_option_writes_its_field(data_options(), data_section());
  DataSettings d = data_settings_from({{"sampler", "group_by_length"}, {"truncation", "only_second"},
                                       {"padding", "max_length"}, {"on_bad_row", "skip"}});
  CHECK(d.sampler == SamplerKind::GroupByLength);
  CHECK(d.truncation == Truncation::OnlySecond);
  CHECK(d.padding == PaddingMode::MaxLength);
  CHECK(d.on_bad_row == BadRowPolicy::Skip);
  CHECK(d.train_batch_size == 32);
}

TEST_CASE("options: every [run] option reaches its RunSettings field", "[options]") {
  check_every_option_writes_its_field(run_options(), run_section());
  RunSettings r = run_settings_from({{"device", "cpu"}, {"threads", 3}, {"seed", 7}});
  CHECK(r.device == DeviceChoice::Cpu);
  CHECK(r.threads == 3);
  CHECK(r.seed == 7);
  CHECK(r.loggers == std::vector<std::string>{"console", "jsonl"});
}

TEST_CASE("options: a choice bound to an enum lists exactly the enum's names", "[options]") {
  const std::vector<OptionSpec> train = train_options().specs(), data = data_options().specs();
  const OptionSpec* precision = find_option(train, "precision");
  REQUIRE(precision);
  CHECK(precision->choices == std::vector<std::string>{"fp32", "bf16", "fp16"});
  const OptionSpec* sampler = find_option(data, "sampler");
  REQUIRE(sampler);
  CHECK(sampler->choices == std::vector<std::string>{"random", "sequential", "group_by_length"});
}
