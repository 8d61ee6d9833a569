// Declarations shared by the bindings (ssm_update.cpp) and the kernels (ssm_update_kernels.cu).
#pragma once

#include <torch/types.h>

namespace ssm_update {

// Deviations the reproduction can switch on, one bit each (kernels/_injections.py mirrors these).
constexpr int kInjectStateBf16 = 1;  // the new state stored rounded to bf16
constexpr int kInjectDtBf16 = 2;     // dt' rounded to bf16
constexpr int kInjectDtSumBf16 = 4;  // dt + dt_bias summed in bf16
constexpr int kInjectDABf16 = 8;     // dA rounded to bf16
constexpr int kInjectDBf16 = 16;     // D rounded to bf16

// The tensors both update kernels read: x [N, H, Dh], A_log [H], B and C [N, G, Ds], D [H],
// state [N, H, Dh, Ds]; all contiguous and on one CUDA device.
struct UpdateArgs {
  torch::Tensor x;
  torch::Tensor a_log;
  torch::Tensor B;
  torch::Tensor C;
  torch::Tensor D;
  torch::Tensor state;
};

void launch_compute_dt(const torch::Tensor& dt, const torch::Tensor& dt_bias, torch::Tensor& dt_out,
                       double lo, double hi, int64_t inject);

void launch_faithful(const UpdateArgs& args, const torch::Tensor& dt_prime, torch::Tensor& state_out,
                     torch::Tensor& out, float* dA_out, int64_t inject);

void launch_fast(const UpdateArgs& args, const torch::Tensor& dt, const torch::Tensor& dt_bias,
                 double lo, double hi, torch::Tensor& state_out, torch::Tensor& out);

}  // namespace ssm_update
