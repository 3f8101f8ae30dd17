// The one list of built-in model families. Adding a family: its component file
// (options, config, ModelFamily) and one line here; see README "Adding a model family".
#include "model/bert_component.h"
#include "registry/builtins.h"

namespace runner {

void register_models(Registry& r) {
  add_builtin(r, bert_spec(), bert_family());
}

}  // namespace runner
