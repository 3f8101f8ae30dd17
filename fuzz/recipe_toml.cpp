// A TOML recipe as `runner validate` reads it.
#include "fuzz_support.h"
#include "fuzz_targets.h"

namespace runner::fuzz {

void recipe_toml(std::string_view bytes) { validate_recipe(write_scratch("recipe.toml", bytes)); }

}  // namespace runner::fuzz
