#include "hub/hub_settings.h"

#include "util/diagnostic.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace runner::hub {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

std::string hf_home() {
  if (std::string v = env("HF_HOME"); !v.empty()) return v;
  if (std::string v = env("XDG_CACHE_HOME"); !v.empty()) return v + "/huggingface";
  return (env("HOME").empty() ? std::string("/tmp") : env("HOME")) + "/.cache/huggingface";
}

// The token `huggingface-cli login` stores, when HF_TOKEN is not set.
std::string stored_token() {
  std::string path = hf_home() + "/token";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return "";  // a FIFO there would block the open
  std::ifstream in(path);
  std::string token;
  std::getline(in, token);
  while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) token.pop_back();
  return token;
}

long positive_env(const char* name, long fallback) {
  std::string v = env(name);
  if (v.empty()) return fallback;
  char* end = nullptr;
  long n = std::strtol(v.c_str(), &end, 10);
  if (*end != '\0' || n <= 0)
    throw InputError(make_error(SourceLocation{{}, 0, 0, "$" + std::string(name)}, "",
                                "expected a whole number > 0, found \"" + v + "\"",
                                "unset " + std::string(name) + " or set it to e.g. 10"));
  return n;
}

}  // namespace

bool env_flag(const char* name) {
  std::string v = env(name);
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
  return v == "1" || v == "true" || v == "yes" || v == "on";
}

std::string hf_hub_cache_dir() {
  if (std::string v = env("HF_HUB_CACHE"); !v.empty()) return v;
  return hf_home() + "/hub";  // HF_HOME, else $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface
}

HubSettings hub_settings_from_env() {
  HubSettings s;
  if (std::string v = env("HF_ENDPOINT"); !v.empty()) s.endpoint = v;
  while (!s.endpoint.empty() && s.endpoint.back() == '/') s.endpoint.pop_back();
  s.token = env("HF_TOKEN");
  if (s.token.empty()) s.token = stored_token();
  s.cache_dir = hf_hub_cache_dir();
  s.offline = env_flag("HF_HUB_OFFLINE") || env_flag("RUNNER_OFFLINE");
  s.timeout_s = positive_env("RUNNER_HUB_TIMEOUT", s.timeout_s);
  s.max_tries = static_cast<int>(positive_env("RUNNER_HUB_RETRIES", s.max_tries));
  s.progress_bar = isatty(STDERR_FILENO) == 1;
  return s;
}

}  // namespace runner::hub
