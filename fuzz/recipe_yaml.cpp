// A YAML recipe as `runner validate` reads it (anchors, aliases, tags, several
// documents in one stream).
#include "fuzz_support.h"
#include "fuzz_targets.h"

namespace runner::fuzz {

void recipe_yaml(std::string_view bytes) { validate_recipe(write_scratch("recipe.yaml", bytes)); }

}  // namespace runner::fuzz
