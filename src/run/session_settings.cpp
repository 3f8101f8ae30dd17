#include "run/session_settings.h"

namespace runner {

SessionSettings decode_settings(const Recipe& r) {
  SessionSettings s;
  s.run = run_settings_from(r.section("run"));
  s.data = data_settings_from(r.section("data"));
  s.train = trainer_config_from(r.section("train"));
  s.lora = lora_settings_from(r.section("lora"));
  s.data_section = r.section("data");
  s.tokenizer = r.section("tokenizer");
  s.model = r.section("model");
  s.optimizer = r.section("optimizer");
  s.scheduler = r.section("scheduler");
  s.topology = r.section("topology");
  return s;
}

}  // namespace runner
