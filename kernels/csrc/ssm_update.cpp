// Python bindings of the SSM decode update kernels: argument checks, output
// allocation, then a launch from ssm_update_kernels.cu.
#include <c10/cuda/CUDAGuard.h>
#include <torch/extension.h>

#include <optional>
#include <tuple>

#include "ssm_update.h"

namespace ssm_update {
namespace {

void check_cuda_contiguous(const torch::Tensor& t, const char* name, const torch::Tensor& like) {
  TORCH_CHECK(t.is_cuda(), name, " must be a CUDA tensor");
  TORCH_CHECK(t.is_contiguous(), name, " must be contiguous");
  TORCH_CHECK(t.device() == like.device(), name, " must be on ", like.device());
}

UpdateArgs checked_args(const torch::Tensor& x, const torch::Tensor& a_log, const torch::Tensor& B,
                        const torch::Tensor& C, const torch::Tensor& D,
                        const torch::Tensor& state) {
  check_cuda_contiguous(x, "x", x);
  check_cuda_contiguous(a_log, "A_log", x);
  check_cuda_contiguous(B, "B", x);
  check_cuda_contiguous(C, "C", x);
  check_cuda_contiguous(D, "D", x);
  check_cuda_contiguous(state, "state", x);
  TORCH_CHECK(x.dim() == 3, "x must be [N, H, Dh]");
  const auto n = x.size(0), h = x.size(1), dh = x.size(2);
  TORCH_CHECK(B.dim() == 3 && B.size(0) == n, "B must be [N, G, Ds]");
  TORCH_CHECK(C.sizes() == B.sizes(), "C must have B's shape");
  const auto g = B.size(1), ds = B.size(2);
  TORCH_CHECK(g > 0 && h % g == 0, "H must be a multiple of G");
  TORCH_CHECK(ds % 32 == 0, "Ds must be a multiple of 32");
  TORCH_CHECK(a_log.dim() == 1 && a_log.size(0) == h, "A_log must be [H]");
  TORCH_CHECK(D.dim() == 1 && D.size(0) == h, "D must be [H]");
  TORCH_CHECK(state.dim() == 4 && state.size(0) == n && state.size(1) == h &&
                  state.size(2) == dh && state.size(3) == ds,
              "state must be [N, H, Dh, Ds]");
  TORCH_CHECK(B.scalar_type() == x.scalar_type() && C.scalar_type() == x.scalar_type() &&
                  D.scalar_type() == x.scalar_type(),
              "B, C and D must have x's dtype");
  return UpdateArgs{x, a_log, B, C, D, state};
}

void check_dt(const torch::Tensor& dt, const torch::Tensor& dt_bias, const torch::Tensor& x) {
  check_cuda_contiguous(dt, "dt", x);
  check_cuda_contiguous(dt_bias, "dt_bias", x);
  TORCH_CHECK(dt.dim() == 2 && dt.size(1) == dt_bias.size(0) && dt_bias.dim() == 1,
              "dt must be [N, H] and dt_bias [H]");
  TORCH_CHECK(dt_bias.scalar_type() == dt.scalar_type(), "dt_bias must have dt's dtype");
}

torch::Tensor compute_dt(const torch::Tensor& dt, const torch::Tensor& dt_bias, double lo,
                         double hi, int64_t inject) {
  check_dt(dt, dt_bias, dt);
  const c10::cuda::CUDAGuard guard(dt.device());
  auto dt_out = torch::empty(dt.sizes(), dt.options().dtype(torch::kFloat));
  launch_compute_dt(dt, dt_bias, dt_out, lo, hi, inject);
  return dt_out;
}

std::tuple<torch::Tensor, torch::Tensor, std::optional<torch::Tensor>> update_faithful(
    const torch::Tensor& x, const torch::Tensor& a_log, const torch::Tensor& B,
    const torch::Tensor& C, const torch::Tensor& D, const torch::Tensor& dt_prime,
    const torch::Tensor& state, bool write_intermediates, int64_t inject) {
  const UpdateArgs args = checked_args(x, a_log, B, C, D, state);
  check_cuda_contiguous(dt_prime, "dt_prime", x);
  TORCH_CHECK(dt_prime.scalar_type() == torch::kFloat, "dt_prime must be float32");
  TORCH_CHECK(dt_prime.dim() == 2 && dt_prime.size(0) == x.size(0) && dt_prime.size(1) == x.size(1),
              "dt_prime must be [N, H]");
  const c10::cuda::CUDAGuard guard(x.device());
  auto state_out = torch::empty_like(state);
  auto out = torch::empty_like(x);
  std::optional<torch::Tensor> dA;
  if (write_intermediates) dA = torch::empty_like(dt_prime);
  launch_faithful(args, dt_prime, state_out, out, dA ? dA->data_ptr<float>() : nullptr, inject);
  return {state_out, out, dA};
}

std::tuple<torch::Tensor, torch::Tensor> update_fast(
    const torch::Tensor& x, const torch::Tensor& a_log, const torch::Tensor& B,
    const torch::Tensor& C, const torch::Tensor& D, const torch::Tensor& dt,
    const torch::Tensor& dt_bias, const torch::Tensor& state, double lo, double hi) {
  const UpdateArgs args = checked_args(x, a_log, B, C, D, state);
  check_dt(dt, dt_bias, x);
  TORCH_CHECK(dt.scalar_type() == x.scalar_type(), "dt must have x's dtype");
  const c10::cuda::CUDAGuard guard(x.device());
  auto state_out = torch::empty_like(state);
  auto out = torch::empty_like(x);
  launch_fast(args, dt, dt_bias, lo, hi, state_out, out);
  return {state_out, out};
}

}  // namespace
}  // namespace ssm_update

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.doc() = "SSM decode update: compute_dt, the faithful kernel and the fast kernel";
  m.def("compute_dt", &ssm_update::compute_dt, "dt' = clip(log1p(exp(f32(dt) + dt_bias)), lo, hi)",
        pybind11::arg("dt"), pybind11::arg("dt_bias"), pybind11::arg("lo"), pybind11::arg("hi"),
        pybind11::arg("inject"));
  m.def("update_faithful", &ssm_update::update_faithful,
        "mlxcel's update kernel, operation for operation; returns (state, out, dA or None)",
        pybind11::arg("x"), pybind11::arg("a_log"), pybind11::arg("B"), pybind11::arg("C"),
        pybind11::arg("D"), pybind11::arg("dt_prime"), pybind11::arg("state"),
        pybind11::arg("write_intermediates"), pybind11::arg("inject"));
  m.def("update_fast", &ssm_update::update_fast,
        "the same update with compute_dt fused, mapped for bandwidth; returns (state, out)",
        pybind11::arg("x"), pybind11::arg("a_log"), pybind11::arg("B"), pybind11::arg("C"),
        pybind11::arg("D"), pybind11::arg("dt"), pybind11::arg("dt_bias"), pybind11::arg("state"),
        pybind11::arg("lo"), pybind11::arg("hi"));
}
