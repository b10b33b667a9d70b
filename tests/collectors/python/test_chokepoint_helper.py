"""Tests of the pure-Python parts of collectors/python/chokepoint_helper.py (no torch needed)."""

import sys
import types
import unittest
from unittest import mock

import chokepoint_helper as cp


class RecordingBackend:
    def __init__(self):
        self.events = []
        self.depth = 0

    def range_push(self, message):
        self.events.append(("push", message))
        self.depth += 1
        return self.depth - 1

    def range_pop(self):
        self.events.append(("pop", None))
        self.depth -= 1
        return self.depth

    def mark(self, message):
        self.events.append(("mark", message))


class FakeCuda:
    """torch.cuda as the helper reads it: a peak the test sets, or an error."""

    def __init__(self):
        self.peak = 0
        self.initialized = True
        self.fail = False

    def is_available(self):
        return True

    def is_initialized(self):
        return self.initialized

    def max_memory_reserved(self):
        if self.fail:
            raise RuntimeError("CUDA error: an illegal memory access was encountered")
        return self.peak


class HelperTest(unittest.TestCase):
    def setUp(self):
        self.backend = RecordingBackend()
        cp.set_backend(self.backend)
        cp._published_memory_peak = 0

    def tearDown(self):
        cp.set_backend(None)

    def test_step_and_phases_nest_and_balance(self):
        with cp.step(3):
            with cp.forward():
                pass
            with cp.backward():
                pass
            with cp.optimizer():
                pass
        names = [m for kind, m in self.backend.events if kind == "push"]
        self.assertEqual(
            names,
            ["chokepoint:step#3", "chokepoint:forward", "chokepoint:backward", "chokepoint:optimizer"],
        )
        self.assertEqual(self.backend.depth, 0)
        # The step range starts with the agent's default step marker prefix.
        self.assertTrue(names[0].startswith(cp.STEP_PREFIX))

    def test_each_step_publishes_the_allocator_peak_when_it_grew(self):
        cuda = FakeCuda()
        fake_torch = types.SimpleNamespace(cuda=cuda)
        with mock.patch.dict(sys.modules, {"torch": fake_torch}):
            cuda.peak = 8 * 2**30
            with cp.step(1):
                pass
            with cp.step(2):  # no growth: no mark
                pass
            cuda.peak = 9 * 2**30
            with cp.step(3):
                pass
            cuda.fail = True  # a broken CUDA context never breaks the training loop
            cuda.peak = 10 * 2**30
            with cp.step(4):
                pass
            cuda.fail = False
            cuda.initialized = False
            with cp.step(5):
                pass
        marks = [m for kind, m in self.backend.events if kind == "mark"]
        self.assertEqual(
            marks,
            [
                cp.META_PREFIX + "memory_reserved_peak_bytes=%d" % (8 * 2**30),
                cp.META_PREFIX + "memory_reserved_peak_bytes=%d" % (9 * 2**30),
            ],
        )
        # The mark follows the step's range, outside it.
        self.assertEqual(self.backend.events[2][0], "mark")
        self.assertEqual(self.backend.depth, 0)

    def test_without_torch_imported_steps_publish_nothing(self):
        with mock.patch.dict(sys.modules):
            sys.modules.pop("torch", None)
            with cp.step(1):
                pass
        self.assertEqual([m for kind, m in self.backend.events if kind == "mark"], [])

    def test_ranges_are_closed_when_the_block_raises(self):
        with self.assertRaises(RuntimeError):
            with cp.step(1):
                raise RuntimeError("boom")
        self.assertEqual(self.backend.depth, 0)

    def test_data_loading_wraps_each_wait(self):
        items = list(cp.data_loading([10, 20, 30]))
        self.assertEqual(items, [10, 20, 30])
        pushes = [e for e in self.backend.events if e[0] == "push"]
        self.assertEqual(len(pushes), 4)  # three items plus the final StopIteration wait
        self.assertEqual(self.backend.depth, 0)

    def test_marked_decorator_uses_the_name(self):
        @cp.marked()
        def load_batch(x):
            return x * 2

        self.assertEqual(load_batch(4), 8)
        self.assertIn(("push", "HelperTest.test_marked_decorator_uses_the_name.<locals>.load_batch"),
                      self.backend.events)
        self.assertEqual(load_batch.__name__, "load_batch")

    def test_publish_formats_sorted_pairs_and_skips_none(self):
        sent = cp.publish(tokens_per_step=16384, parameter_count=124439808, precision="bf16", note=None)
        self.assertEqual(sent, ["chokepoint:meta parameter_count=124439808 precision=bf16 tokens_per_step=16384"])
        self.assertEqual(self.backend.events, [("mark", sent[0])])

    def test_publish_splits_long_metadata_and_respects_the_agent_limit(self):
        facts = {"key_%02d" % i: 10**12 + i for i in range(12)}
        sent = cp.publish(**facts)
        self.assertGreater(len(sent), 1)
        for message in sent:
            self.assertTrue(message.startswith(cp.META_PREFIX))
            self.assertLessEqual(len(message), cp.MAX_MESSAGE_BYTES)
        pairs = " ".join(m[len(cp.META_PREFIX):] for m in sent).split(" ")
        self.assertEqual(len(pairs), 12)

    def test_publish_rejects_bad_keys_and_values(self):
        with self.assertRaises(ValueError):
            cp.publish(**{"Bad Key": 1})
        with self.assertRaises(ValueError):
            cp.publish(model="gpt 2")
        self.assertEqual(self.backend.events, [])

    def test_count_and_publish_model(self):
        class Param:
            def __init__(self, n, requires_grad=True):
                self.n = n
                self.requires_grad = requires_grad

            def numel(self):
                return self.n

        class Model:
            def parameters(self):
                return [Param(1000), Param(24), Param(7, requires_grad=False)]

        self.assertEqual(cp.count_parameters(Model()), 1031)
        self.assertEqual(cp.count_parameters(Model(), trainable_only=True), 1024)
        sent = cp.publish_model(Model(), tokens_per_step=2048)
        self.assertEqual(sent, ["chokepoint:meta parameter_count=1031 tokens_per_step=2048"])

    def test_default_backend_without_torch_is_a_no_op(self):
        cp.set_backend(None)
        try:
            import torch  # noqa: F401
            self.skipTest("torch is installed; the no-op path is for machines without it")
        except ImportError:
            pass
        with cp.step(1):
            cp.mark("x")
        self.assertIsNone(cp.install_optimizer_step_marker())


class FlopTallyTest(unittest.TestCase):
    def setUp(self):
        self.backend = RecordingBackend()
        cp.set_backend(self.backend)

    def tearDown(self):
        cp.set_backend(None)

    def test_the_precision_is_the_dtype_carrying_most_matrix_work(self):
        tally = cp.FlopTally()
        tally.add_matmul("torch.float32", 10)  # the loss in fp32
        tally.add_matmul("torch.bfloat16", 1000)  # autocast GEMMs
        tally.add_matmul("torch.int64", 10**9)  # not floating point: ignored
        tally.flops = 21_560_000_000_000
        self.assertEqual(tally.precision(), "bf16")
        self.assertEqual(
            tally.facts(),
            {"flops_per_step": 21_560_000_000_000, "flops_source": "flop_counter", "precision": "bf16",
             "precision_source": "op_dtypes"},
        )

    def test_fp32_matmuls_on_tensor_cores_are_tf32_when_allowed(self):
        tally = cp.FlopTally()
        tally.add_matmul("torch.float32", 5)
        self.assertEqual(tally.precision(fp32_is_tf32=False), "fp32")
        self.assertEqual(tally.precision(fp32_is_tf32=True), "tf32")

    def test_no_matrix_work_names_no_precision(self):
        tally = cp.FlopTally()
        self.assertIsNone(tally.precision())
        self.assertNotIn("precision", tally.facts())

    def test_facts_fit_the_agents_marks(self):
        tally = cp.FlopTally()
        tally.add_matmul("torch.float16", 1)
        tally.flops = 3 * 10**15
        messages = cp.publish(**tally.facts())
        for message in messages:
            self.assertTrue(message.startswith(cp.META_PREFIX))
            self.assertLessEqual(len(message), cp.MAX_MESSAGE_BYTES)
        joined = " ".join(messages)
        self.assertIn("flops_per_step=3000000000000000", joined)
        self.assertIn("precision=fp16", joined)

    def test_a_counted_step_is_still_one_step_range(self):
        with cp.step(1, count_flops=True):
            pass
        pushes = [m for kind, m in self.backend.events if kind == "push"]
        self.assertEqual(pushes[0], "chokepoint:step#1")
        self.assertEqual(self.backend.depth, 0)


if __name__ == "__main__":
    unittest.main()
