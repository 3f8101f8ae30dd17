// Precompiled for the LibTorch library: every TU of runner_torch gets it.
#include <torch/torch.h>
