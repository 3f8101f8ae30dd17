#include "recipe/sections.h"

namespace runner {

SectionSpec model_section() {
  SectionSpec s;
  s.name = "model";
  s.doc = "The model component: architecture, initialisation and pretrained weights";
  s.component_kind = Kind::Model;
  s.selector_key = "type";
  s.default_component = "bert";
  s.folder_option = "pretrained";
  return s;
}

}  // namespace runner
