"""Chokepoint helper: mark training phases with NVTX and publish model facts for the analyzer.

Pure Python, optional, no dependencies beyond PyTorch (used when present). Everything is a no-op
when torch or CUDA is missing, so a script can keep the calls in every environment.

    import chokepoint_helper as cp

    cp.publish_model(model, tokens_per_step=batch_size * seq_len)   # MFU needs no user input
    for step, batch in enumerate(cp.data_loading(loader)):           # marks each wait for data
        with cp.step(step):                                          # one training step
            with cp.forward():
                loss = model(batch)
            with cp.backward():
                loss.backward()
            with cp.optimizer():
                opt.step()

The Chokepoint agent (chokepoint-cli run/launch) receives these NVTX ranges through its own NVTX
injection: "chokepoint:step#N" ranges mark step boundaries for --steps/--at-step windows, and
"chokepoint:meta key=value ..." marks land in the trace's metadata notes as model.<key>.
"""

import contextlib
import functools
import re

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


def step(number=None):
    """One training step: a range "chokepoint:step#N" (the agent's default step marker)."""
    return phase(STEP_PREFIX if number is None else "%s#%d" % (STEP_PREFIX, int(number)))


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
    this rank), which is what MFU needs: FLOPs per step ~ 6 * parameters * tokens."""
    return publish(parameter_count=count_parameters(model), tokens_per_step=tokens_per_step, **extra)


def install_optimizer_step_marker(message=STEP_PREFIX):
    """Marks the end of every optimizer step (torch.optim step post-hook) with an NVTX mark, so a
    training loop gets step boundaries without editing it. Returns the hook handle, or None when
    torch is not available."""
    try:
        from torch.optim.optimizer import register_optimizer_step_post_hook  # noqa: PLC0415
    except ImportError:
        return None
    return register_optimizer_step_post_hook(lambda *_args, **_kwargs: mark(message))
