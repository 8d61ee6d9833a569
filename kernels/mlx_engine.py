"""mlxcel's SSM update parity checks replayed through MLX itself (ssm-diff --engine mlx).

mlxcel's `ssm_update_parity_tests` (lablup/mlxcel, src/lib/mlxcel-core/src/
ssm_update_parity_tests.rs) runs seven checks in three tests.  Each builds its
inputs from MLX's random with the check's seed, runs `ssm_update_kernel` (the
tree's kernel text through `mlx::core::fast::cuda_kernel`, dt' from an
`mlx::core::compile`d op chain) and compares y and the new state with a
reference composed of MLX ops in float32.  This module does the same from
Python, through the `mlx` package:

* `make_case`: the check's inputs, with the test's seed, call order, shapes
  and casts (`mx.random.seed`, then `uniform`, `log`, `normal`, each cast and
  evaluated), so they are the bytes the Rust test sees on the same device.
* `launch`: the tree's launch site (kernels.tree) evaluated with MLX arrays
  (`MLX_OPS`): its input expressions, template arguments, grid and
  threadgroup, and its compute_dt chain through `mx.compile`; the kernel text
  through `mx.fast.cuda_kernel`.
* `parity_reference`: the test's reference from MLX ops (softplus as the bridge
  defines it, `logaddexp(x, 0)`); `float64_reference`: the same in numpy
  float64 from the input bytes.
* `instrument`: a copy of the tree's kernel with three extra outputs that
  capture dt', A and the decay exp(A dt') where the kernel computes them (one
  line inserted, the body otherwise untouched), under its own kernel name so
  it never shares a JIT module with the real one.

Nothing here runs a kernel on the CPU: `mx.fast.cuda_kernel` needs MLX's CUDA
back-end.  Input construction and both references run anywhere MLX does.
"""

from __future__ import annotations

import hashlib
import math
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import mlx.core as mx
import numpy as np

from codemods import descendants, parse_source
from kernels._tree_interpreter import EvaluatedLaunch, evaluate_launch
from kernels._tree_model import TreeKernelError, node_text
from kernels.tree import TreeKernel

F32_TOLERANCE = (1e-5, 1e-4)
"""tolerance_for(FLOAT32): normalized RMS and normalized max."""
BF16_TOLERANCE = (1.6e-2, 7e-2)
"""tolerance_for(anything else)."""
PIN_FILE = "src/lib/mlx-cpp/CMakeLists.txt"
"""Where an mlxcel tree pins MLX (`GIT_TAG <commit>`)."""


@dataclass(frozen=True)
class ParityShape:
    """One mixer's single-token step as the parity test sets it up."""

    name: str
    batch: int
    heads: int
    head_dim: int
    groups: int
    state_dim: int
    dt_limits: tuple[float, float]


GRANITE_TINY = ParityShape("granite-4.0-h-tiny", 1, 48, 64, 1, 128, (0.001, 100.0))
NEMOTRON_H = ParityShape("nemotron-h", 2, 64, 64, 8, 128, (1e-3, 0.1))
PADDED_ROWS = ParityShape("head_dim 60", 1, 4, 60, 2, 64, (0.0, math.inf))


@dataclass(frozen=True)
class ParityCheck:
    """One `check(shape, seed, act_dtype, a_log_dtype)` call of the parity tests."""

    test: str
    shape: ParityShape
    seed: int
    act_dtype: str
    a_log_dtype: str

    @property
    def label(self) -> str:
        return f"{self.seed} {self.shape.name} act {self.act_dtype} A_log {self.a_log_dtype}"


_F32_TEST = "ssm_update_kernel_matches_graph_step_f32"
_BF16_TEST = "ssm_update_kernel_matches_graph_step_bf16"
_KEYS_TEST = "ssm_update_kernel_keys_on_a_log_dtype"

FILE_ORDER: tuple[ParityCheck, ...] = (
    ParityCheck(_F32_TEST, GRANITE_TINY, 2067, "f32", "f32"),
    ParityCheck(_F32_TEST, NEMOTRON_H, 2068, "f32", "f32"),
    ParityCheck(_F32_TEST, PADDED_ROWS, 2073, "f32", "f32"),
    ParityCheck(_BF16_TEST, GRANITE_TINY, 2069, "bf16", "bf16"),
    ParityCheck(_BF16_TEST, NEMOTRON_H, 2070, "bf16", "f32"),
    ParityCheck(_KEYS_TEST, GRANITE_TINY, 2071, "bf16", "bf16"),
    ParityCheck(_KEYS_TEST, GRANITE_TINY, 2072, "bf16", "f32"),
)
"""The seven checks in the order the test file writes them."""
SUITE_ORDER: tuple[ParityCheck, ...] = tuple(sorted(FILE_ORDER, key=lambda c: c.test))
"""The order one `cargo test ... -- --test-threads=1` process runs them: libtest runs tests sorted by
name (keys_on_a_log_dtype, matches_graph_step_bf16, matches_graph_step_f32), each test's checks in turn."""
CHECKS = {check.seed: check for check in FILE_ORDER}
SEED_PATTERN_FAILING = (2069, 2071)
"""The checks the seed saw fail, with the new state at normalized RMS 1.8e-3 to 2.5e-3."""
SEED_PATTERN_RANGE = (1.8e-3, 2.5e-3)
SEED_PATTERN_PASSING = (2067, 2068, 2070, 2073)
"""The checks the seed saw pass (2072 never ran: the test panicked on 2071 first)."""

DTYPES = {"f32": mx.float32, "bf16": mx.bfloat16, "f16": mx.float16}
MLX_TYPE_STRING = {mx.float32: "float32", mx.bfloat16: "bfloat16", mx.float16: "float16"}
CUDA_TYPE = {mx.float32: "float", mx.bfloat16: "__nv_bfloat16", mx.float16: "__half"}


class MlxOps:
    """MLX arrays for the tree interpreter: the compute_dt lambda runs through `mx.compile`, as mlxcel's does."""

    def is_array(self, value):
        return isinstance(value, mx.array)

    def is_dtype(self, value):
        return isinstance(value, mx.Dtype)

    def dtype_named(self, name):
        return {v: k for k, v in MLX_TYPE_STRING.items()}.get(name)

    def dtype_name(self, dtype):
        return MLX_TYPE_STRING.get(dtype, str(dtype))

    def query(self, array, method):
        return {
            "shape": lambda: tuple(array.shape),
            "dtype": lambda: array.dtype,
            "ndim": lambda: array.ndim,
            "size": lambda: array.size,
        }[method]()

    def scalar(self, value):
        return mx.array(float(value), dtype=mx.float32)

    def astype(self, array, dtype):
        return array.astype(dtype)

    def unary(self, name, array):
        return getattr(mx, name)(array)

    def binary(self, name, a, b):
        return getattr(mx, name)(a, b)

    def clip(self, array, lo, hi):
        return mx.clip(array, lo, hi)

    def compile(self, function, shapeless):
        return mx.compile(function, shapeless=shapeless)

    def contiguous(self, array):
        return array


MLX_OPS = MlxOps()


# ---------------------------------------------------------------- inputs


def make_case(check: ParityCheck) -> dict[str, mx.array]:
    """The check's inputs as the test's make_case builds them, on MLX's default device.

    Call order (each draw takes the next key of the global sequence):
    uniform(1, 16, [H]) -> log -> A_log; uniform(-3, -1, [H]) -> dt_bias; then
    normal x [N, 1, H, Dh], normal B and C [N, 1, G, Ds], uniform(0.5, 1.5, [H])
    -> D, normal dt [N, 1, H], normal state [N, H, Dh, Ds].  Every draw is
    float32, cast (activations and the per-head parameters to the activation
    dtype, A_log to its own, the state to float32) and evaluated.
    """
    s, act, a_log_dtype = check.shape, DTYPES[check.act_dtype], DTYPES[check.a_log_dtype]
    mx.random.seed(check.seed)

    def cast(array: mx.array, dtype) -> mx.array:
        out = array.astype(dtype)
        mx.eval(out)
        return out

    case = {"A_log": cast(mx.log(mx.random.uniform(1.0, 16.0, [s.heads])), a_log_dtype)}
    case["dt_bias"] = cast(mx.random.uniform(-3.0, -1.0, [s.heads]), act)
    case["x"] = cast(mx.random.normal([s.batch, 1, s.heads, s.head_dim]), act)
    case["B"] = cast(mx.random.normal([s.batch, 1, s.groups, s.state_dim]), act)
    case["C"] = cast(mx.random.normal([s.batch, 1, s.groups, s.state_dim]), act)
    case["D"] = cast(mx.random.uniform(0.5, 1.5, [s.heads]), act)
    case["dt"] = cast(mx.random.normal([s.batch, 1, s.heads]), act)
    case["state"] = cast(mx.random.normal([s.batch, s.heads, s.head_dim, s.state_dim]), mx.float32)
    return case


def to_numpy(array: mx.array) -> np.ndarray:
    """An MLX array's values as float64 (bf16 widened exactly)."""
    return np.asarray(array.astype(mx.float32)).astype(np.float64)


# ---------------------------------------------------------------- references


@dataclass(frozen=True)
class Reference:
    """Every stage of one update: dt' [N*H], A [N*H] (per n = batch*heads), decay [N*H], state, y."""

    dt: np.ndarray
    A: np.ndarray
    decay: np.ndarray
    state: np.ndarray
    y: np.ndarray


def parity_reference(check: ParityCheck, case: dict[str, mx.array]) -> Reference:
    """The parity test's reference, from MLX ops in float32 on the default device."""
    s = check.shape
    b, h, dh, g, ds = s.batch, s.heads, s.head_dim, s.groups, s.state_dim
    f32 = lambda a: a.astype(mx.float32)  # noqa: E731
    lo = mx.full([1], s.dt_limits[0], dtype=mx.float32)
    hi = mx.full([1], s.dt_limits[1], dtype=mx.float32)
    z = mx.add(f32(case["dt"]), f32(case["dt_bias"]))
    dt = mx.clip(mx.logaddexp(z, mx.zeros_like(z)), lo, hi)
    dt = mx.reshape(dt, [b, h, 1, 1])
    a = mx.negative(mx.exp(f32(case["A_log"])))
    decay = mx.exp(mx.multiply(dt, mx.reshape(a, [1, h, 1, 1])))

    def per_head(m: mx.array) -> mx.array:
        m = mx.reshape(f32(m), [b, g, ds])
        m = mx.repeat(m, h // g, 1)
        return mx.reshape(m, [b, h, 1, ds])

    x = mx.reshape(f32(case["x"]), [b, h, dh, 1])
    dbx = mx.multiply(mx.multiply(dt, x), per_head(case["B"]))
    state = mx.add(mx.multiply(decay, case["state"]), dbx)
    y = mx.sum(mx.multiply(state, per_head(case["C"])), -1, keepdims=False)
    y = mx.add(y, mx.multiply(mx.reshape(x, [b, h, dh]), mx.reshape(f32(case["D"]), [1, h, 1])))
    y = mx.reshape(y, [b, 1, h, dh])
    a_n = mx.broadcast_to(mx.reshape(a, [1, h]), [b, h])
    mx.eval(y, state, dt, a_n, decay)
    return Reference(
        to_numpy(dt).reshape(-1), to_numpy(a_n).reshape(-1), to_numpy(decay).reshape(-1), to_numpy(state), to_numpy(y)
    )


def float64_reference(check: ParityCheck, case: dict[str, mx.array]) -> Reference:
    """The same update in numpy float64 from the input bytes."""
    s = check.shape
    b, h, dh, g, ds = s.batch, s.heads, s.head_dim, s.groups, s.state_dim
    v = {name: to_numpy(array) for name, array in case.items()}
    dt = np.clip(np.logaddexp(v["dt"].reshape(b, h) + v["dt_bias"][None, :], 0.0), *s.dt_limits)
    a = np.broadcast_to(-np.exp(v["A_log"])[None, :], (b, h))
    decay = np.exp(a * dt)
    per_head = lambda m: np.repeat(m.reshape(b, g, ds), h // g, axis=1)[:, :, None, :]  # noqa: E731
    x = v["x"].reshape(b, h, dh)
    state = decay[..., None, None] * v["state"] + (dt[..., None] * x)[..., None] * per_head(v["B"])
    y = (state * per_head(v["C"])).sum(-1) + x * v["D"][None, :, None]
    return Reference(dt.reshape(-1), a.reshape(-1), decay.reshape(-1), state, y.reshape(b, 1, h, dh))


def normalized_deviation(got: np.ndarray, want: np.ndarray) -> tuple[float, float]:
    """The test's normalized_deviation: RMS and max of got - want, each over the RMS of want (floor 1e-20)."""
    got, want = np.asarray(got, np.float64).reshape(-1), np.asarray(want, np.float64).reshape(-1)
    if got.size == 0:
        return 0.0, 0.0
    diff = got - want
    ref_rms = max(math.sqrt(float(np.mean(want * want))), 1e-20)
    return math.sqrt(float(np.mean(diff * diff))) / ref_rms, float(np.max(np.abs(diff))) / ref_rms


def tolerance_for(dtype: str) -> tuple[float, float]:
    """The test's tolerance_for: float32 (1e-5, 1e-4), anything else (1.6e-2, 7e-2)."""
    return F32_TOLERANCE if dtype == "f32" else BF16_TOLERANCE


# ---------------------------------------------------------------- the tree's kernel through MLX


def launcher_arguments(kernel: TreeKernel, check: ParityCheck, case: dict[str, mx.array]) -> dict[str, object]:
    """ssm_update_kernel's arguments by the tree's parameter names, in the test's layout."""
    by_role = {
        "X": case["x"],
        "A_log": case["A_log"],
        "B": case["B"],
        "C": case["C"],
        "D": case["D"],
        "state_in": case["state"],
        "dt": case["dt"],
        "dt_bias": case["dt_bias"],
        "dt_min": float(check.shape.dt_limits[0]),
        "dt_max": float(check.shape.dt_limits[1]),
    }
    return {param: by_role[role] for param, role in kernel.parameter_roles().items()}


def module_name(kernel_name: str, template_values) -> str:
    """MLX's JIT module name for a custom kernel: `custom_kernel_<name>` and template_arguments_hash."""
    parts = []
    for _, value in template_values:
        if isinstance(value, mx.Dtype):
            parts.append(MLX_TYPE_STRING[value])
        elif isinstance(value, bool):
            parts.append("t" if value else "f")
        else:
            parts.append(str(value))
    return "custom_kernel_" + kernel_name + "".join(f"_{p}" for p in parts)


def signature(site: EvaluatedLaunch) -> tuple[str, ...]:
    """The C types of the generated parameters (inputs, then outputs), which the module name may omit."""
    return tuple(CUDA_TYPE[a.dtype] for a in site.inputs) + tuple(CUDA_TYPE[d] for d in site.output_dtypes)


def bind(kernel: TreeKernel, check: ParityCheck, case: dict[str, mx.array]) -> EvaluatedLaunch:
    """The tree's launch site evaluated on the check's inputs with MLX (dt' through mx.compile)."""
    return evaluate_launch(kernel, launcher_arguments(kernel, check, case), MLX_OPS)


_KERNELS: dict[tuple, object] = {}
"""One mx.fast.cuda_kernel object per (name, inputs, outputs, source) for the process, as mlxcel's static holder."""


def cuda_kernel(name: str, input_names, output_names, source: str):
    key = (name, tuple(input_names), tuple(output_names), source)
    if key not in _KERNELS:
        _KERNELS[key] = mx.fast.cuda_kernel(
            name=name, input_names=list(input_names), output_names=list(output_names), source=source
        )
    return _KERNELS[key]


def launch(kernel: TreeKernel, site: EvaluatedLaunch, probe: Instrumented | None = None) -> list[mx.array]:
    """Run the tree's kernel (or its instrumented copy) as ssm_update_kernel does; evaluated outputs."""
    if probe is None:
        fn = cuda_kernel(kernel.name, kernel.input_names, kernel.output_names, kernel.source)
        shapes, dtypes = list(site.output_shapes), list(site.output_dtypes)
    else:
        fn = cuda_kernel(probe.name, kernel.input_names, kernel.output_names + probe.extra_outputs, probe.source)
        count = site.inputs[kernel.input_names.index("dt")].size
        shapes = list(site.output_shapes) + [(count,)] * len(probe.extra_outputs)
        dtypes = list(site.output_dtypes) + [mx.float32] * len(probe.extra_outputs)
    outputs = fn(
        inputs=list(site.inputs),
        template=list(site.template_values),
        grid=site.grid,
        threadgroup=site.threadgroup,
        output_shapes=shapes,
        output_dtypes=dtypes,
        init_value=None,
        verbose=False,
    )
    mx.eval(*outputs)
    return list(outputs)


@dataclass(frozen=True)
class Instrumented:
    """A copy of the tree's kernel with stage outputs: its name, source, the extra outputs and the inserted line."""

    name: str
    source: str
    extra_outputs: tuple[str, ...]
    inserted: str
    after_line: int


STAGE_OUTPUTS = {"dt": "stage_dt", "A": "stage_A", "decay": "stage_decay"}
"""The probe's extra output for each stage it captures (A only where the kernel holds it in a variable of its own)."""


def instrument(kernel: TreeKernel) -> Instrumented:
    """Insert one line that stores dt', A and the decay once per (batch, head), after the kernel computes them.

    They are found by structure among the body's top-level declarations: dt'
    reads the `dt` input (its index is the per-(batch, head) index the line
    stores at); the decay uses dt''s name and A's name or `A_log[...]`; A reads
    `A_log` and not dt' (a kernel that forms A inline in the decay exposes no
    A).  Thread (0, 0) of row block 0 stores them.
    """
    prefix = "void __ssm_stage_probe__() {\n"
    wrapped = (prefix + kernel.source + "\n}\n").encode()
    root = parse_source(wrapped, "cpp").root_node
    body = next((n.child_by_field_name("body") for n in descendants(root) if n.type == "function_definition"), None)
    if body is None:
        raise TreeKernelError(f"{kernel.source_where}: the kernel body does not parse as C++")
    found: dict[str, tuple[str, object, str | None]] = {}
    for statement in body.named_children:
        if statement.type != "declaration":
            continue
        for declarator in statement.children_by_field_name("declarator"):
            value = declarator.child_by_field_name("value") if declarator.type == "init_declarator" else None
            if value is None:
                continue
            names = [n for n in descendants(declarator.child_by_field_name("declarator")) if n.type == "identifier"]
            if not names:
                continue
            name = node_text(names[-1])
            subscripts = [n for n in descendants(value) if n.type == "subscript_expression"]
            reads = {node_text(n.child_by_field_name("argument")) for n in subscripts}
            used = {node_text(n) for n in descendants(value) if n.type == "identifier"}
            uses_dt = "dt" in found and found["dt"][0] in used
            if reads == {"dt"} and "dt" not in found:
                index = subscripts[0].child_by_field_name("indices")
                index = index.named_children[0] if index is not None and index.named_children else None
                found["dt"] = (name, statement, node_text(index) if index is not None else None)
            elif (
                uses_dt
                and "decay" not in found
                and reads <= {"A_log"}
                and (reads == {"A_log"} or ("A" in found and found["A"][0] in used))
            ):
                found["decay"] = (name, statement, None)
            elif reads == {"A_log"} and not uses_dt and "A" not in found:
                found["A"] = (name, statement, None)
    missing = [role for role in ("dt", "decay") if role not in found]
    if missing or found["dt"][2] is None:
        raise TreeKernelError(
            f"{kernel.source_where}: cannot find where the kernel computes "
            f"{', '.join(missing) or 'the index of dt'} (a declaration reading dt[...], and one "
            f"using it with A_log[...] or A)"
        )
    roles = [role for role in STAGE_OUTPUTS if role in found]
    index = found["dt"][2]
    last = max((found[role][1] for role in roles), key=lambda n: n.end_byte)
    stores = "; ".join(f"{STAGE_OUTPUTS[role]}[{index}] = {found[role][0]}" for role in roles)
    line = f" if (threadIdx.x == 0 && threadIdx.y == 0 && blockIdx.y == 0) {{ {stores}; }}"
    cut = last.end_byte - len(prefix.encode())
    raw = kernel.source.encode()
    source = (raw[:cut] + line.encode() + raw[cut:]).decode()
    return Instrumented(
        kernel.name + "_stages", source, tuple(STAGE_OUTPUTS[role] for role in roles), line, last.end_point.row
    )


# ---------------------------------------------------------------- one check


def digest(array: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(array, dtype=np.float32).tobytes()).hexdigest()[:16]


STAGES = ("dt", "A", "decay", "state", "y")


def run_check(kernel: TreeKernel, check: ParityCheck, stages: bool = True) -> dict[str, object]:
    """One check as the test runs it, plus the float64 distances and (with stages) the captured stages."""
    case = make_case(check)
    site = bind(kernel, check, case)
    out, state = (to_numpy(a) for a in launch(kernel, site)[:2])
    ref, ref64 = parity_reference(check, case), float64_reference(check, case)
    y_tol, state_tol = tolerance_for(check.act_dtype), F32_TOLERANCE
    y_dev, state_dev = normalized_deviation(out, ref.y), normalized_deviation(state, ref.state)
    result: dict[str, object] = {
        "seed": check.seed,
        "test": check.test,
        "shape": check.shape.name,
        "act_dtype": check.act_dtype,
        "a_log_dtype": check.a_log_dtype,
        "module": module_name(kernel.name, site.template_values),
        "signature": list(signature(site)),
        "grid": list(site.grid),
        "threadgroup": list(site.threadgroup),
        "dt_chain": list(site.dt_chain),
        "y": {
            "nrms": y_dev[0],
            "nmax": y_dev[1],
            "tolerance": list(y_tol),
            "ok": y_dev[0] < y_tol[0] and y_dev[1] < y_tol[1],
            "nrms_f64": normalized_deviation(out, ref64.y)[0],
        },
        "state": {
            "nrms": state_dev[0],
            "nmax": state_dev[1],
            "tolerance": list(state_tol),
            "ok": state_dev[0] < state_tol[0] and state_dev[1] < state_tol[1],
            "nrms_f64": normalized_deviation(state, ref64.state)[0],
        },
        "digest": {"y": digest(out), "state": digest(state)},
    }
    result["passes"] = result["y"]["ok"] and result["state"]["ok"]
    if stages:
        probe = instrument(kernel)
        outputs = launch(kernel, site, probe)
        got = {"y": to_numpy(outputs[0]), "state": to_numpy(outputs[1])}
        by_output = {output: role for role, output in STAGE_OUTPUTS.items()}
        got.update((by_output[name], to_numpy(a)) for name, a in zip(probe.extra_outputs, outputs[2:], strict=True))
        table = []
        for name in STAGES:
            if name not in got:
                table.append({"stage": name, "exposed": False})
                continue
            budget = y_tol if name == "y" else F32_TOLERANCE
            nrms, nmax = normalized_deviation(got[name], getattr(ref, name))
            table.append(
                {
                    "stage": name,
                    "nrms": nrms,
                    "nmax": nmax,
                    "budget": budget[0],
                    "nrms_f64": normalized_deviation(got[name], getattr(ref64, name))[0],
                    "deviates": not (nrms < budget[0] and nmax < budget[1]),
                    "exposed": True,
                }
            )
        result["stages"] = table
        result["first_deviating_stage"] = next((row["stage"] for row in table if row.get("deviates")), None)
        result["probe_matches_kernel"] = bool(np.array_equal(got["state"], state) and np.array_equal(got["y"], out))
        result["probe_module"] = module_name(probe.name, site.template_values)
    return result


def prime_other_a_log(kernel: TreeKernel, check: ParityCheck) -> dict[str, object]:
    """Launch the check's kernel once with A_log in the other dtype first, so the check reuses that module."""
    other = "f32" if check.a_log_dtype == "bf16" else "bf16"
    primer = ParityCheck(check.test, check.shape, check.seed + 1000, check.act_dtype, other)
    case = make_case(primer)
    site = bind(kernel, primer, case)
    launch(kernel, site)
    return {
        "primed_with_a_log": other,
        "module": module_name(kernel.name, site.template_values),
        "signature": list(signature(site)),
    }


# ---------------------------------------------------------------- versions


def tree_pin(root: Path) -> str | None:
    """The MLX commit the tree pins (GIT_TAG in src/lib/mlx-cpp/CMakeLists.txt), None when absent."""
    path = root / PIN_FILE
    if not path.is_file():
        return None
    match = re.search(r"GIT_TAG\s+([0-9A-Za-z_.\-]+)", path.read_text(errors="replace"))
    return match.group(1) if match else None


def gpu_description() -> dict[str, object]:
    """MLX's device_info on the default device, and nvidia-smi's name, compute capability and driver."""
    found: dict[str, object] = {"default_device": str(mx.default_device())}
    try:
        found["mlx_device_info"] = {
            k: (v if isinstance(v, (int, str)) else str(v)) for k, v in mx.device_info().items()
        }
    except (RuntimeError, AttributeError) as error:
        found["mlx_device_info"] = f"unavailable: {error}"
    try:
        smi = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,compute_cap,driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        name, cap, driver = (part.strip() for part in smi.stdout.splitlines()[0].split(","))
        found.update(gpu=name, compute_capability=cap, driver=driver)
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        found.update(gpu=None, compute_capability=None, driver=None)
    return found


def versions(root: Path) -> dict[str, object]:
    """MLX's version beside the tree's pin, and whether they can be the same build."""
    pin = tree_pin(root)
    version = mx.__version__
    if pin is None:
        note = f"the tree pins no MLX ({PIN_FILE} has no GIT_TAG)"
    elif re.fullmatch(r"v?" + re.escape(version), pin):
        note = "the same release"
    else:
        note = (
            f"differ: this is MLX {version} (a release), the tree builds MLX at {pin}; "
            f"kernels compiled by MLX's JIT may differ between them"
        )
    return {"mlx": version, "tree_pin": pin, "pin_file": PIN_FILE, "mlx_vs_pin": note, **gpu_description()}
