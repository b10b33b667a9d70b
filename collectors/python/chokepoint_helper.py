"""Chokepoint helper: mark training phases with NVTX and publish model facts for the analyzer.

Pure Python, optional, no dependencies beyond PyTorch (used when present). Everything is a no-op
when torch or CUDA is missing, so a script can keep the calls in every environment.

    import chokepoint_helper as cp

    cp.publish_model(model, tokens_per_step=batch_size * seq_len)   # MFU needs no user input
    for step, batch in enumerate(cp.data_loading(loader)):           # marks each wait for data
        with cp.step(step, count_flops=(step == 1)):                 # one step; count step 1's FLOPs
            with cp.forward():
                loss = model(batch)
            with cp.backward():
                loss.backward()
            with cp.optimizer():
                opt.step()

The Chokepoint agent (chokepoint-cli run/launch) receives these NVTX ranges through its own NVTX
injection: "chokepoint:step#N" ranges mark step boundaries for --steps/--at-step windows, and
"chokepoint:meta key=value ..." marks land in the trace's metadata notes as model.<key>. After each
step that raised the CUDA caching allocator's peak, the helper publishes it
(model.memory_reserved_peak_bytes), which the analysis uses for its memory-capacity check.
"""

import contextlib
import functools
import re
import sys

__all__ = [
    "STEP_PREFIX",
    "META_PREFIX",
    "set_backend",
    "step",
    "phase",
    "forward",
    "backward",
    "optimizer",
    "data_loading",
    "marked",
    "mark",
    "publish",
    "count_parameters",
    "publish_model",
    "counting_flops",
    "FlopTally",
    "install_optimizer_step_marker",
]

STEP_PREFIX = "chokepoint:step"
META_PREFIX = "chokepoint:meta "
# The agent stores at most 119 bytes of an NVTX message; longer metadata is split over marks.
MAX_MESSAGE_BYTES = 119

_KEY = re.compile(r"^[a-z][a-z0-9_]{0,47}$")


class _NoBackend:
    """Used when torch (or CUDA) is not available: every call does nothing."""

    def range_push(self, message):
        return 0

    def range_pop(self):
        return 0

    def mark(self, message):
        pass


_backend = None


def _torch_backend():
    try:
        import torch  # noqa: PLC0415 - optional dependency, imported on first use
    except ImportError:
        return _NoBackend()
    try:
        if not torch.cuda.is_available():
            return _NoBackend()
        return torch.cuda.nvtx
    except Exception:  # a broken CUDA setup must not break training
        return _NoBackend()


def _get_backend():
    global _backend
    if _backend is None:
        _backend = _torch_backend()
    return _backend


def set_backend(backend):
    """Replaces the NVTX backend (an object with range_push, range_pop and mark). None restores
    the default (torch.cuda.nvtx when usable). For tests and for non-torch NVTX bindings."""
    global _backend
    _backend = backend


@contextlib.contextmanager
def phase(name):
    """An NVTX range named `name` around the block."""
    backend = _get_backend()
    backend.range_push(str(name))
    try:
        yield
    finally:
        backend.range_pop()


@contextlib.contextmanager
def step(number=None, count_flops=False):
    """One training step: a range "chokepoint:step#N" (the agent's default step marker).

    With count_flops=True the step also runs under PyTorch's FLOP counter and publishes what one
    real training step costs (see counting_flops): pass it for one step after the first, e.g.
    ``cp.step(i, count_flops=(i == 1))``. That step runs slower while it is counted."""
    name = STEP_PREFIX if number is None else "%s#%d" % (STEP_PREFIX, int(number))
    with phase(name):
        if count_flops:
            with counting_flops():
                yield
        else:
            yield
    _publish_memory_peak()


_published_memory_peak = 0


def _publish_memory_peak():
    """Publishes torch.cuda.max_memory_reserved() (bytes) as model.memory_reserved_peak_bytes when it
    grew since the last step: the device memory the caching allocator held at most, which the
    capacity check needs. Reading it costs no synchronization. Does nothing without torch already
    imported and CUDA initialized, and never raises into the training loop."""
    global _published_memory_peak
    torch = sys.modules.get("torch")
    if torch is None:
        return
    try:
        cuda = torch.cuda
        if not cuda.is_available() or not cuda.is_initialized():
            return
        peak = int(cuda.max_memory_reserved())
    except Exception:  # noqa: BLE001 - a profiler helper must not break the job it observes
        return
    if peak > _published_memory_peak:
        _published_memory_peak = peak
        publish(memory_reserved_peak_bytes=peak)


def forward():
    return phase("chokepoint:forward")


def backward():
    return phase("chokepoint:backward")


def optimizer():
    return phase("chokepoint:optimizer")


def data_loading(iterable, name="chokepoint:data"):
    """Yields the items of `iterable` (a DataLoader), with an NVTX range around each wait for the
    next item, so time spent waiting for input shows up as such."""
    backend = _get_backend()
    iterator = iter(iterable)
    while True:
        backend.range_push(name)
        try:
            item = next(iterator)
        except StopIteration:
            return
        finally:
            backend.range_pop()
        yield item


def marked(name=None):
    """Decorator: runs the function inside an NVTX range (default: its qualified name)."""

    def decorate(function):
        label = name or getattr(function, "__qualname__", getattr(function, "__name__", "function"))

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            with phase(label):
                return function(*args, **kwargs)

        return wrapper

    return decorate


def mark(message):
    """An instantaneous NVTX mark."""
    _get_backend().mark(str(message))


def _format_value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    text = str(value)
    if not text or any(c.isspace() or c == "=" for c in text):
        raise ValueError("metadata value %r must be non-empty, without spaces or '='" % (value,))
    return text


def publish(**facts):
    """Publishes facts as "chokepoint:meta key=value ..." NVTX marks; the agent stores them in the
    trace's metadata notes as model.<key>. Keys: lower case letters, digits, underscores. Values:
    numbers, booleans or strings without spaces. None values are skipped. Returns the marks sent."""
    pairs = []
    for key in sorted(facts):
        value = facts[key]
        if value is None:
            continue
        if not _KEY.match(key):
            raise ValueError("metadata key %r must match %s" % (key, _KEY.pattern))
        pairs.append("%s=%s" % (key, _format_value(value)))
    messages = []
    current = META_PREFIX
    for pair in pairs:
        if len(META_PREFIX) + len(pair) > MAX_MESSAGE_BYTES:
            raise ValueError("metadata entry %r is too long for one NVTX mark" % pair)
        candidate = pair if current == META_PREFIX else " " + pair
        if len(current) + len(candidate) > MAX_MESSAGE_BYTES:
            messages.append(current)
            current = META_PREFIX + pair
        else:
            current += candidate
    if current != META_PREFIX:
        messages.append(current)
    for message in messages:
        mark(message)
    return messages


def count_parameters(model, trainable_only=False):
    """Number of parameters of a torch.nn.Module (or anything with .parameters())."""
    total = 0
    for parameter in model.parameters():
        if trainable_only and not getattr(parameter, "requires_grad", True):
            continue
        total += int(parameter.numel())
    return total


def publish_model(model, tokens_per_step=None, **extra):
    """Publishes the model's parameter count and the tokens per step (over all micro-batches of
    this rank): FLOPs per step ~ 6 * parameters * tokens, for transformers. Leave tokens out for
    models where that rule does not hold (convolutions: images are not tokens) and count one step
    instead (step(n, count_flops=True) or counting_flops())."""
    return publish(parameter_count=count_parameters(model), tokens_per_step=tokens_per_step, **extra)


_PRECISION_OF_DTYPE = {
    "torch.bfloat16": "bf16",
    "torch.float16": "fp16",
    "torch.float32": "fp32",
    "torch.float64": "fp64",
    "torch.float8_e4m3fn": "fp8",
    "torch.float8_e5m2": "fp8",
    "torch.float8_e4m3fnuz": "fp8",
    "torch.float8_e5m2fnuz": "fp8",
}

# aten ops whose inputs decide the precision of the tensor-core work (matrix products, convolutions,
# fused attention); their input dtype is what the GPU's math runs in, autocast included.
_MATMUL_OPS = (
    "mm", "addmm", "bmm", "baddbmm", "convolution", "_scaled_mm", "_scaled_dot_product_flash_attention",
    "_scaled_dot_product_efficient_attention", "_scaled_dot_product_cudnn_attention",
    "_flash_attention_forward", "_efficient_attention_forward", "convolution_backward",
    "_scaled_dot_product_flash_attention_backward", "_scaled_dot_product_efficient_attention_backward",
)


class FlopTally:
    """What counting_flops measured: total FLOPs of the block and the precision of its matrix math."""

    def __init__(self):
        self.flops = 0
        self.weight_by_precision = {}

    def add_matmul(self, dtype_name, weight):
        precision = _PRECISION_OF_DTYPE.get(dtype_name)
        if precision is None:
            return
        self.weight_by_precision[precision] = self.weight_by_precision.get(precision, 0) + weight

    def precision(self, fp32_is_tf32=False):
        """The precision that carries most of the matrix work, or None."""
        if not self.weight_by_precision:
            return None
        best = max(sorted(self.weight_by_precision), key=lambda p: self.weight_by_precision[p])
        return "tf32" if best == "fp32" and fp32_is_tf32 else best

    def facts(self, fp32_is_tf32=False):
        """The metadata publish() sends for this tally."""
        facts = {"flops_per_step": int(self.flops), "flops_source": "flop_counter"}
        precision = self.precision(fp32_is_tf32)
        if precision is not None:
            facts["precision"] = precision
            facts["precision_source"] = "op_dtypes"
        return facts


def _matmul_dtype_mode(tally):
    """A TorchDispatchMode that adds the input dtype of every matrix op to `tally`, weighted by the
    size of its work (output elements times the reduced dimension)."""
    from torch.utils._python_dispatch import TorchDispatchMode  # noqa: PLC0415

    class _MatmulDtypes(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            name = getattr(getattr(func, "_overloadpacket", None), "__name__", "")
            if name in _MATMUL_OPS and args and hasattr(args[0], "dtype"):
                first = args[0]
                reduced = int(first.shape[-1]) if getattr(first, "dim", lambda: 0)() > 0 else 1
                result = out[0] if isinstance(out, (tuple, list)) and out else out
                elements = int(result.numel()) if hasattr(result, "numel") else 1
                tally.add_matmul(str(first.dtype), elements * max(reduced, 1))
            return out

    return _MatmulDtypes()


@contextlib.contextmanager
def counting_flops(publish_result=True):
    """Counts the FLOPs of the block with torch.utils.flop_counter.FlopCounterMode (PyTorch 2.1+)
    and the precision of its matrix work, and publishes them as flops_per_step, flops_source,
    precision and precision_source (the analysis prefers them to 6*N*T). Yields a FlopTally. Wrap
    one whole real training step, forward, backward and optimizer. Without torch or its FLOP
    counter, nothing is counted and nothing is published."""
    tally = FlopTally()
    try:
        import torch  # noqa: PLC0415
        from torch.utils.flop_counter import FlopCounterMode  # noqa: PLC0415
    except ImportError:
        yield tally
        return
    counter = FlopCounterMode(display=False)
    dtypes = _matmul_dtype_mode(tally)
    with counter, dtypes:
        yield tally
    tally.flops = counter.get_total_flops()
    if publish_result and tally.flops > 0:
        fp32_is_tf32 = bool(getattr(torch.backends.cuda.matmul, "allow_tf32", False))
        publish(**tally.facts(fp32_is_tf32))


def install_optimizer_step_marker(message=STEP_PREFIX):
    """Marks the end of every optimizer step (torch.optim step post-hook) with an NVTX mark, so a
    training loop gets step boundaries without editing it. Returns the hook handle, or None when
    torch is not available."""
    try:
        from torch.optim.optimizer import register_optimizer_step_post_hook  # noqa: PLC0415
    except ImportError:
        return None
    return register_optimizer_step_post_hook(lambda *_args, **_kwargs: mark(message))
