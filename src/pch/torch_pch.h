// Precompiled for the LibTorch library: every TU of runner_torch gets it.
#pragma once
#include <torch/torch.h>
