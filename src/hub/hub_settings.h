// Where the Hub is, where its cache lives and how patient a download is, read
// from the same environment variables huggingface_hub reads.
#pragma once

#include <string>

namespace runner::hub {

struct HubSettings {
  std::string endpoint = "https://huggingface.co";  // $HF_ENDPOINT
  std::string token;                                // $HF_TOKEN, else $HF_HOME/token
  std::string cache_dir;  // $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub
  bool offline = false;   // $HF_HUB_OFFLINE or $RUNNER_OFFLINE set to 1/true/yes/on
  // A request that connects or sends nothing for this long is abandoned ($RUNNER_HUB_TIMEOUT).
  long timeout_s = 10;
  // Tries per file after a 5xx answer or a dropped connection ($RUNNER_HUB_RETRIES).
  int max_tries = 5;
  long first_backoff_ms = 250;  // doubled after each failed try
  bool progress_bar = false;    // stderr is a terminal
};

HubSettings hub_settings_from_env();

// The Hugging Face hub cache folder by huggingface_hub's precedence.
std::string hf_hub_cache_dir();

// Whether $name is set to a true value ("1", "true", "yes", "on", any case).
bool env_flag(const char* name);

}  // namespace runner::hub
