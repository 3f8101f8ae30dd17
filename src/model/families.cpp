// The one list of built-in model families. Adding a family: its component file
// (options, config, spec), its builder in model/family_builders.cpp (a member of
// FamilyBuilders) and one line here; see docs/extending.md.
#include "model/families.h"

#include "model/bert_component.h"
#include "model/deberta_v2_component.h"
#include "model/distilbert_component.h"
#include "model/electra_component.h"
#include "model/modernbert_component.h"
#include "model/roberta_component.h"
#include "registry/builtins.h"

namespace runner {

void register_models(Registry& r) {
  const FamilyBuilders& builders = family_builders();
  add_builtin(r, bert_spec(), builders.bert);
  add_builtin(r, distilbert_spec(), builders.distilbert);
  add_builtin(r, electra_spec(), builders.electra);
  add_builtin(r, roberta_spec(), builders.roberta);
  add_builtin(r, xlm_roberta_spec(), builders.roberta);
  add_builtin(r, deberta_v2_spec(), builders.deberta_v2);
  add_builtin(r, modernbert_spec(), builders.modernbert);
}

}  // namespace runner
