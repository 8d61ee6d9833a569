// CUDA kernels of the SSM decode update (mlxcel #2230 part c).
//
// compute_dt and the faithful kernel reproduce mlxcel's CUDA path operation for
// operation: the same thread mapping, per-lane column order, shuffle-down tree
// and casts.  Every product and sum of the faithful kernel goes through
// __fmul_rn / __fadd_rn so that nvcc cannot contract it into an FMA; that makes
// its arithmetic the literal left-to-right reading of the expression, which the
// CPU emulation (kernels/emulation.py) repeats in torch, so the two agree
// bitwise once they are given the same dt' and dA.  The fast kernel computes
// the same function with a mapping chosen for bandwidth.
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_bf16.h>
#include <torch/types.h>

#include "ssm_update.h"

namespace ssm_update {
namespace {

__device__ __forceinline__ float to_f32(float v) { return v; }
__device__ __forceinline__ float to_f32(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T>
__device__ __forceinline__ T from_f32(float v);
template <>
__device__ __forceinline__ float from_f32<float>(float v) { return v; }
template <>
__device__ __forceinline__ __nv_bfloat16 from_f32<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

__device__ __forceinline__ float round_to_bf16(float v) {
  return __bfloat162float(__float2bfloat16_rn(v));
}

// dt' = clip(log1p(exp(f32(dt) + f32(dt_bias))), lo, hi), one thread per (n).
template <typename T>
__global__ void compute_dt_kernel(const T* __restrict__ dt, const T* __restrict__ dt_bias,
                                  float* __restrict__ dt_out, int64_t count, int heads,
                                  float lo, float hi, int inject) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const int h = static_cast<int>(i % heads);
  float z;
  if (inject & kInjectDtSumBf16) {
    z = round_to_bf16(__fadd_rn(round_to_bf16(to_f32(dt[i])), round_to_bf16(to_f32(dt_bias[h]))));
  } else {
    z = __fadd_rn(to_f32(dt[i]), to_f32(dt_bias[h]));
  }
  float v = fminf(fmaxf(log1pf(expf(z)), lo), hi);
  if (inject & kInjectDtBf16) v = round_to_bf16(v);
  dt_out[i] = v;
}

constexpr int kFaithfulRowsPerBlock = 8;

// One warp per (n = sequence*heads + head, row d); lane l owns the Ds/32
// contiguous columns from l*Ds/32.  Launched as grid (1, ceil(Dh/8), N*H),
// block (32, 8).
template <typename T, typename U, typename ALog>
__global__ void __launch_bounds__(32 * kFaithfulRowsPerBlock)
    faithful_kernel(const T* __restrict__ x, const ALog* __restrict__ a_log,
                    const T* __restrict__ B, const T* __restrict__ C, const T* __restrict__ D,
                    const float* __restrict__ dt, const U* __restrict__ state_in,
                    U* __restrict__ state_out, T* __restrict__ out, float* __restrict__ dA_out,
                    int heads, int groups, int head_dim, int state_dim, int inject) {
  const int lane = threadIdx.x;
  const int d = blockIdx.y * kFaithfulRowsPerBlock + threadIdx.y;
  if (d >= head_dim) return;  // uniform over the warp: the shuffles below stay full
  const int64_t n = blockIdx.z;
  const int h = static_cast<int>(n % heads);
  const int64_t seq = n / heads;
  const int g = h / (heads / groups);

  const float A = -expf(to_f32(a_log[h]));
  const float dt_n = dt[n];
  float dA = expf(__fmul_rn(A, dt_n));
  if (inject & kInjectDABf16) dA = round_to_bf16(dA);
  if (dA_out != nullptr && blockIdx.y == 0 && threadIdx.y == 0 && lane == 0) dA_out[n] = dA;

  const float xd = to_f32(x[n * head_dim + d]);
  const float x_dt = __fmul_rn(xd, dt_n);
  const int per_lane = state_dim / 32;
  const int64_t row = (n * head_dim + d) * state_dim;
  const int64_t bc = (seq * groups + g) * state_dim;
  float acc = 0.0f;
  for (int j = 0; j < per_lane; ++j) {
    const int s = lane * per_lane + j;
    const float updated = __fadd_rn(__fmul_rn(dA, to_f32(state_in[row + s])),
                                    __fmul_rn(x_dt, to_f32(B[bc + s])));
    state_out[row + s] = from_f32<U>((inject & kInjectStateBf16) ? round_to_bf16(updated) : updated);
    acc = __fadd_rn(acc, __fmul_rn(updated, to_f32(C[bc + s])));
  }
  for (int offset = 16; offset > 0; offset >>= 1) {
    acc = __fadd_rn(acc, __shfl_down_sync(0xffffffffu, acc, offset));
  }
  if (lane == 0) {
    float d_skip = to_f32(D[h]);
    if (inject & kInjectDBf16) d_skip = round_to_bf16(d_skip);
    out[n * head_dim + d] = from_f32<T>(__fadd_rn(acc, __fmul_rn(xd, d_skip)));
  }
}

template <typename T, int N>
struct alignas(sizeof(T) * N) Packed {
  T v[N];
};

constexpr int kFastWarps = 4;
constexpr int kFastRowsPerWarp = 4;

// Same function, mapped for bandwidth: compute_dt fused in; each warp takes
// kFastRowsPerWarp rows and issues all their (vectorised, Ds/32-wide) state
// loads before the first use; the row sums use a butterfly.  Launched as grid
// (N*H, ceil(Dh / (kFastWarps * kFastRowsPerWarp))), block 32 * kFastWarps.
template <typename T, typename U, typename ALog, int VEC>
__global__ void __launch_bounds__(32 * kFastWarps)
    fast_kernel(const T* __restrict__ x, const ALog* __restrict__ a_log, const T* __restrict__ B,
                const T* __restrict__ C, const T* __restrict__ D, const T* __restrict__ dt_raw,
                const T* __restrict__ dt_bias, const U* __restrict__ state_in,
                U* __restrict__ state_out, T* __restrict__ out, int heads, int groups,
                int head_dim, float lo, float hi) {
  constexpr int state_dim = 32 * VEC;
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int64_t n = blockIdx.x;
  const int h = static_cast<int>(n % heads);
  const int64_t seq = n / heads;
  const int g = h / (heads / groups);
  const int d0 = (blockIdx.y * kFastWarps + warp) * kFastRowsPerWarp;
  if (d0 >= head_dim) return;

  const int64_t row0 = (n * head_dim + d0) * state_dim + lane * VEC;
  Packed<U, VEC> state[kFastRowsPerWarp];
#pragma unroll
  for (int r = 0; r < kFastRowsPerWarp; ++r) {
    if (d0 + r < head_dim) {
      state[r] = *reinterpret_cast<const Packed<U, VEC>*>(state_in + row0 + r * state_dim);
    }
  }
  const int64_t bc = (seq * groups + g) * state_dim + lane * VEC;
  const Packed<T, VEC> b_vec = *reinterpret_cast<const Packed<T, VEC>*>(B + bc);
  const Packed<T, VEC> c_vec = *reinterpret_cast<const Packed<T, VEC>*>(C + bc);

  const float dt_n =
      fminf(fmaxf(log1pf(expf(to_f32(dt_raw[n]) + to_f32(dt_bias[h]))), lo), hi);
  const float dA = expf(-expf(to_f32(a_log[h])) * dt_n);
  const float d_skip = to_f32(D[h]);

#pragma unroll
  for (int r = 0; r < kFastRowsPerWarp; ++r) {
    if (d0 + r >= head_dim) break;
    const float xd = to_f32(x[n * head_dim + d0 + r]);
    const float x_dt = xd * dt_n;
    Packed<U, VEC> updated;
    float acc = 0.0f;
#pragma unroll
    for (int j = 0; j < VEC; ++j) {
      const float v = dA * to_f32(state[r].v[j]) + x_dt * to_f32(b_vec.v[j]);
      updated.v[j] = from_f32<U>(v);
      acc += v * to_f32(c_vec.v[j]);
    }
    *reinterpret_cast<Packed<U, VEC>*>(state_out + row0 + r * state_dim) = updated;
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
      acc += __shfl_xor_sync(0xffffffffu, acc, offset);
    }
    if (lane == r) out[n * head_dim + d0 + r] = from_f32<T>(acc + xd * d_skip);
  }
}

template <typename T>
using cuda_t = std::conditional_t<std::is_same_v<T, at::BFloat16>, __nv_bfloat16, T>;

template <typename T>
const cuda_t<T>* ptr(const torch::Tensor& t) {
  return reinterpret_cast<const cuda_t<T>*>(t.data_ptr<T>());
}
template <typename T>
cuda_t<T>* mut_ptr(torch::Tensor& t) {
  return reinterpret_cast<cuda_t<T>*>(t.data_ptr<T>());
}

// Calls fn(T{}) with T the C++ type of a float32 or bfloat16 dtype.
template <typename Fn>
void dispatch_float_or_bf16(at::ScalarType dtype, const char* what, Fn&& fn) {
  switch (dtype) {
    case at::kFloat:
      fn(float{});
      break;
    case at::kBFloat16:
      fn(at::BFloat16{});
      break;
    default:
      TORCH_CHECK(false, what, " must be float32 or bfloat16, got ", dtype);
  }
}

}  // namespace

void launch_compute_dt(const torch::Tensor& dt, const torch::Tensor& dt_bias, torch::Tensor& dt_out,
                       double lo, double hi, int64_t inject) {
  const int64_t count = dt.numel();
  const int heads = static_cast<int>(dt.size(-1));
  if (count == 0) return;
  constexpr int threads = 256;
  const auto blocks = static_cast<unsigned>((count + threads - 1) / threads);
  auto stream = c10::cuda::getCurrentCUDAStream();
  dispatch_float_or_bf16(dt.scalar_type(), "dt", [&](auto t_tag) {
    using T = decltype(t_tag);
    compute_dt_kernel<cuda_t<T>><<<blocks, threads, 0, stream>>>(
        ptr<T>(dt), ptr<T>(dt_bias), dt_out.data_ptr<float>(), count, heads,
        static_cast<float>(lo), static_cast<float>(hi), static_cast<int>(inject));
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

void launch_faithful(const UpdateArgs& a, const torch::Tensor& dt_prime, torch::Tensor& state_out,
                     torch::Tensor& out, float* dA_out, int64_t inject) {
  const int64_t seq_heads = a.x.size(0) * a.x.size(1);
  if (seq_heads == 0) return;
  const int heads = static_cast<int>(a.x.size(1));
  const int head_dim = static_cast<int>(a.x.size(2));
  const int groups = static_cast<int>(a.B.size(1));
  const int state_dim = static_cast<int>(a.B.size(2));
  TORCH_CHECK(seq_heads <= 65535, "the faithful mapping puts N*H on grid.z, at most 65535; got ",
              seq_heads);
  const dim3 grid(1, (head_dim + kFaithfulRowsPerBlock - 1) / kFaithfulRowsPerBlock,
                  static_cast<unsigned>(seq_heads));
  const dim3 block(32, kFaithfulRowsPerBlock);
  auto stream = c10::cuda::getCurrentCUDAStream();
  dispatch_float_or_bf16(a.x.scalar_type(), "x", [&](auto t_tag) {
    using T = decltype(t_tag);
    dispatch_float_or_bf16(a.state.scalar_type(), "state", [&](auto u_tag) {
      using U = decltype(u_tag);
      dispatch_float_or_bf16(a.a_log.scalar_type(), "A_log", [&](auto a_tag) {
        using ALog = decltype(a_tag);
        faithful_kernel<cuda_t<T>, cuda_t<U>, cuda_t<ALog>><<<grid, block, 0, stream>>>(
            ptr<T>(a.x), ptr<ALog>(a.a_log), ptr<T>(a.B), ptr<T>(a.C), ptr<T>(a.D),
            dt_prime.data_ptr<float>(), ptr<U>(a.state), mut_ptr<U>(state_out), mut_ptr<T>(out),
            dA_out, heads, groups, head_dim, state_dim, static_cast<int>(inject));
      });
    });
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

void launch_fast(const UpdateArgs& a, const torch::Tensor& dt, const torch::Tensor& dt_bias,
                 double lo, double hi, torch::Tensor& state_out, torch::Tensor& out) {
  const int64_t seq_heads = a.x.size(0) * a.x.size(1);
  if (seq_heads == 0) return;
  const int heads = static_cast<int>(a.x.size(1));
  const int head_dim = static_cast<int>(a.x.size(2));
  const int groups = static_cast<int>(a.B.size(1));
  const int state_dim = static_cast<int>(a.B.size(2));
  constexpr int rows_per_block = kFastWarps * kFastRowsPerWarp;
  const dim3 grid(static_cast<unsigned>(seq_heads),
                  (head_dim + rows_per_block - 1) / rows_per_block);
  auto stream = c10::cuda::getCurrentCUDAStream();
  dispatch_float_or_bf16(a.x.scalar_type(), "x", [&](auto t_tag) {
    using T = decltype(t_tag);
    dispatch_float_or_bf16(a.state.scalar_type(), "state", [&](auto u_tag) {
      using U = decltype(u_tag);
      dispatch_float_or_bf16(a.a_log.scalar_type(), "A_log", [&](auto a_tag) {
        using ALog = decltype(a_tag);
        auto launch = [&](auto vec) {
          constexpr int VEC = decltype(vec)::value;
          fast_kernel<cuda_t<T>, cuda_t<U>, cuda_t<ALog>, VEC><<<grid, 32 * kFastWarps, 0, stream>>>(
              ptr<T>(a.x), ptr<ALog>(a.a_log), ptr<T>(a.B), ptr<T>(a.C), ptr<T>(a.D), ptr<T>(dt),
              ptr<T>(dt_bias), ptr<U>(a.state), mut_ptr<U>(state_out), mut_ptr<T>(out), heads,
              groups, head_dim, static_cast<float>(lo), static_cast<float>(hi));
        };
        switch (state_dim) {
          case 64: launch(std::integral_constant<int, 2>{}); break;
          case 128: launch(std::integral_constant<int, 4>{}); break;
          case 256: launch(std::integral_constant<int, 8>{}); break;
          default: TORCH_CHECK(false, "the fast kernel takes Ds of 64, 128 or 256, got ", state_dim);
        }
      });
    });
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

}  // namespace ssm_update
