// An MLflow tracking server's answer as the mlflow logger reads it: the first
// two bytes pick the HTTP status (100-599), the rest is the body (and, cut
// short, a redirect's Location). It goes through read_answer as a JSON call's
// and an upload's answer, then every field the logger takes from one. A server
// may send anything: nothing here may throw, not even InputError.
#include "fuzz_targets.h"

#include "run/mlflow_client.h"
#include "util/redacted_uri.h"

namespace runner::fuzz {

void mlflow_answer(std::string_view bytes) {
  long status = 200;
  if (bytes.size() >= 2) {
    status = 100 + ((static_cast<unsigned char>(bytes[0]) << 8 | static_cast<unsigned char>(bytes[1])) % 500);
    bytes.remove_prefix(2);
  }
  const std::string body(bytes);
  const std::string location = body.substr(0, 256);
  for (bool json_answer : {true, false}) {
    mlflow::Answer a = mlflow::read_answer(status, body, location, json_answer);
    for (auto path : {std::initializer_list<const char*>{"experiment", "experiment_id"},
                      std::initializer_list<const char*>{"experiment_id"},
                      std::initializer_list<const char*>{"run", "info", "run_id"},
                      std::initializer_list<const char*>{"run", "info", "artifact_uri"},
                      std::initializer_list<const char*>{"error_code"}})
      (void)mlflow::string_at(a.body, path);
  }
  (void)mlflow::proxied_artifacts(body);
  (void)redacted_uri(body);
}

}  // namespace runner::fuzz
