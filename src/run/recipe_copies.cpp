#include "run/recipe_copies.h"

#include "recipe/emit.h"
#include "util/synced_file.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace runner {

void copy_given_recipe(const Recipe& recipe, const RunPaths& paths) {
  fs::path main(recipe.path);
  fs::copy_file(main, paths.recipe_as_given() + main.extension().string(),
                fs::copy_options::overwrite_existing);
  for (const auto& f : recipe.files) {
    if (fs::equivalent(f, main)) continue;
    fs::create_directories(paths.recipe_as_given() + ".d");
    fs::copy_file(f, paths.recipe_as_given() + ".d/" + fs::path(f).filename().string(),
                  fs::copy_options::overwrite_existing);
  }
}

void write_resolved_recipe(const Recipe& recipe, const RunPaths& paths) {
  std::string tmp = paths.recipe_resolved() + ".tmp";
  write_file_synced(tmp, emit_recipe(recipe.resolved, RecipeFormat::Json));
  fs::rename(tmp, paths.recipe_resolved());
}

}  // namespace runner
