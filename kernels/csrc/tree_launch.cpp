// Python binding that launches a kernel read from an mlxcel tree (kernels/tree.py).
// The generated .cu beside it defines launch_tree_kernel: the wrapped kernels,
// compiled as MLX's cuda_kernel compiles them, and a table from module name to
// function.  Arguments are passed the way MLX's CustomKernel passes them: one
// device pointer per input, then one per output.
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime.h>
#include <torch/extension.h>

#include <string>
#include <vector>

cudaError_t launch_tree_kernel(const std::string& name, void** args, dim3 grid, dim3 block,
                               cudaStream_t stream);

namespace {

dim3 to_dim3(const std::vector<int64_t>& v, const char* what) {
  TORCH_CHECK(v.size() == 3, what, " must have three dimensions");
  return dim3(static_cast<unsigned>(v[0]), static_cast<unsigned>(v[1]), static_cast<unsigned>(v[2]));
}

void launch(const std::string& name, const std::vector<torch::Tensor>& buffers,
            const std::vector<int64_t>& blocks, const std::vector<int64_t>& threads) {
  TORCH_CHECK(!buffers.empty(), "no buffers");
  std::vector<void*> pointers(buffers.size());
  std::vector<void*> args(buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i) {
    TORCH_CHECK(buffers[i].is_cuda() && buffers[i].is_contiguous(), "buffer ", i, " must be contiguous CUDA");
    TORCH_CHECK(buffers[i].device() == buffers[0].device(), "buffer ", i, " is on another device");
    pointers[i] = buffers[i].data_ptr();
    args[i] = &pointers[i];
  }
  const c10::cuda::CUDAGuard guard(buffers[0].device());
  const cudaError_t err = launch_tree_kernel(name, args.data(), to_dim3(blocks, "grid"),
                                             to_dim3(threads, "threadgroup"),
                                             c10::cuda::getCurrentCUDAStream());
  TORCH_CHECK(err == cudaSuccess, "launching ", name, ": ", cudaGetErrorString(err));
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.doc() = "kernels read from an mlxcel tree, wrapped as MLX's cuda_kernel wraps them";
  m.def("launch", &launch, "launch the kernel of a module name on (inputs..., outputs...)",
        pybind11::arg("name"), pybind11::arg("buffers"), pybind11::arg("blocks"),
        pybind11::arg("threads"));
}
