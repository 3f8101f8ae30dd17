// What builds each built-in model family's modules: the LibTorch half of a
// family, kept apart from its spec (model/*_component.h) so that the front
// runner, which links no LibTorch, registers every family's options too.
#pragma once

#include <any>

namespace runner {

// One ModelFamily (model/model.h) per family of model/families.cpp's list.
// runner_torch fills them (model/family_builders.cpp); the front links src/front/
// in its place, where they are empty: it validates models, never builds one.
struct FamilyBuilders {
  std::any bert, distilbert, electra, roberta, deberta_v2, modernbert;
};
const FamilyBuilders& family_builders();

}  // namespace runner
