// sgd with the arithmetic of torch 1.13's _single_tensor_sgd: weight decay,
// momentum with dampening, and Nesterov, each the same float operations.
#include "optim/optimizer.h"
#include "model/host_read.h"
#include "util/diagnostic.h"

namespace runner {
namespace {

struct SgdOptions {
  double momentum = 0, dampening = 0;
  bool nesterov = false;
};

class Sgd : public Optimizer {
 public:
  Sgd(std::vector<NamedParameter> params, double lr, double wd,
      const std::vector<std::string>& no_decay, SgdOptions o)
      : Optimizer(std::move(params), lr, wd, no_decay), o_(o), buffers_(params_.size()) {}

  TensorMap state() const override {
    TensorMap m;
    for (size_t i = 0; i < params_.size(); ++i)
      if (buffers_[i].defined()) m[params_[i].name + "/momentum_buffer"] = buffers_[i];
    return m;
  }

  void load_state(const TensorMap& state) override {
    for (size_t i = 0; i < params_.size(); ++i) {
      std::string key = params_[i].name + "/momentum_buffer";
      buffers_[i] = state.count(key) ? optimizer_state_entry(state, key, params_[i].tensor)
                                     : torch::Tensor();
    }
  }

 protected:
  // torch 1.13's op sequence, reading its scalars on the host.
  void apply(const StepInputs& in) override {
    torch::NoGradGuard no_grad;
    if (in.skip.defined() && read_bool(in.skip)) return;
    const double lr = read_double(in.lr);
    for (size_t i = 0; i < params_.size(); ++i) {
      torch::Tensor& p = params_[i].tensor;
      if (!p.grad().defined()) continue;
      torch::Tensor d_p = p.grad();
      if (decay_[i] != 0) d_p = d_p.add(p, decay_[i]);
      if (o_.momentum != 0) d_p = with_momentum(i, d_p);
      p.add_(d_p, -lr);
    }
  }

 private:
  torch::Tensor with_momentum(size_t i, const torch::Tensor& d_p) {
    torch::Tensor& buf = buffers_[i];
    if (!buf.defined())
      buf = d_p.clone().detach();
    else
      buf.mul_(o_.momentum).add_(d_p, 1 - o_.dampening);
    return o_.nesterov ? d_p.add(buf, o_.momentum) : buf;
  }

  SgdOptions o_;
  std::vector<torch::Tensor> buffers_;
};

}  // namespace

std::unique_ptr<Optimizer> make_sgd_optimizer(const nlohmann::json& o, std::vector<NamedParameter> params) {
  SgdOptions s{o.at("momentum").get<double>(), o.at("dampening").get<double>(),
               o.at("nesterov").get<bool>()};
  if (s.nesterov && (s.momentum <= 0 || s.dampening != 0))
    throw InputError(make_error({}, "optimizer.nesterov",
                                "nesterov needs momentum > 0 and dampening = 0",
                                "set optimizer.momentum (e.g. 0.9) and dampening = 0"));
  return std::make_unique<Sgd>(std::move(params), o.at("lr").get<double>(),
                               o.at("weight_decay").get<double>(), o.at("no_decay").get<std::vector<std::string>>(), s);
}

}  // namespace runner
