// The one list of built-in model families. Adding a family: its component file
// (options, config, ModelFamily) and one line here; see docs/extending.md.
#include "model/bert_component.h"
#include "model/distilbert_component.h"
#include "model/electra_component.h"
#include "registry/builtins.h"

namespace runner {

void register_models(Registry& r) {
  add_builtin(r, bert_spec(), bert_family());
  add_builtin(r, distilbert_spec(), distilbert_family());
  add_builtin(r, electra_spec(), electra_family());
}

}  // namespace runner
