// The one explicit list of built-in components. Each module exposes a
// register_* function next to its implementation; nothing registers itself.
#include "registry/registry.h"
#include "registry/builtins.h"

namespace runner {

void register_builtins(Registry& r) {
  register_schedulers(r);
  register_metrics(r);
  register_loggers(r);
  register_models(r);
  register_tokenizers(r);
  register_datasets(r);
  register_optimizers(r);
}

}  // namespace runner
