"""Python stack sampling for Chokepoint captures, without changing the job.

chokepoint-cli run/launch put collectors/python/site on PYTHONPATH; its sitecustomize.py calls
start_from_environment() in every Python process of the job (forked DataLoader workers restart the
sampler through os.register_at_fork; spawn/forkserver children run sitecustomize themselves).
No dependency beyond the standard library.

A daemon thread samples every thread's Python stack (sys._current_frames) at CHOKEPOINT_PYSTACKS_HZ
(default 100) while the process is being recorded: from the start when CHOKEPOINT_PYSTACKS_ALWAYS=1
(run), else only while the agent's capture marker exists (<socket dir>/<pid>.capturing, or the
parent's, for DataLoader workers). A dormant process (launch without attach) takes no sample: it
checks for the marker ten times a second.

Samples go to <CHOKEPOINT_PYSTACKS_DIR>/<pid>.pystacks, one JSON object per line:
  {"v": 1, "pid": P, "ppid": Q, "argv": [...], "clock": "CLOCK_MONOTONIC", "hz": 100}   first line
  {"f": [id, file, function, line]}            a frame, defined before its first use
  {"s": [id, [frame ids, leaf first]]}         a stack, defined before its first use
  {"thread": [native thread id, name]}        a thread's name, before its first sample
  {"t": ns, "tid": native thread id, "s": id}  a sample (time.monotonic_ns: the agent's clock)
  {"end": true, "dropped": n}                  last line, when the process exits normally
The file is bounded (CHOKEPOINT_PYSTACKS_MAX_MB, default 256); past that, samples are counted as
dropped. Nothing here may break the job: every failure stops sampling quietly.
"""

import atexit
import json
import os
import sys
import threading
import time

FORMAT_VERSION = 1
MAX_DEPTH = 128
FLUSH_SECONDS = 0.2  # forked DataLoader workers end with os._exit: what is not written is lost
MARKER_CHECK_SECONDS = 0.1


class StackSampler:
    """Samples the Python stacks of this process's threads into a .pystacks file."""

    def __init__(self, out_dir, hz=100.0, always=False, socket_dir=None, max_bytes=256 << 20, clock=None):
        self.out_dir = out_dir
        self.interval = 1.0 / max(1.0, min(float(hz), 1000.0))
        self.always = always
        self.socket_dir = socket_dir
        self.max_bytes = max_bytes
        self.clock = clock or time.monotonic_ns
        self.pid = os.getpid()
        self.frames = {}  # code object -> {line: frame id}
        self.frame_count = 0
        self.stacks = {}
        self.threads = set()
        self.last = {}  # thread ident -> (key of its leaf, stack id): an unchanged stack is not walked again
        self.lines = []
        self.written = 0
        self.dropped = 0
        self.samples = 0
        self.file = None
        self.thread = None
        self.stopping = threading.Event()
        self.lock = threading.Lock()

    # --- output -------------------------------------------------------------------------------
    def _open(self):
        os.makedirs(self.out_dir, exist_ok=True)
        path = os.path.join(self.out_dir, "%d.pystacks" % self.pid)
        self.file = open(path, "w", encoding="utf-8")
        header = {"v": FORMAT_VERSION, "pid": self.pid, "ppid": os.getppid(), "argv": list(sys.argv[:32]),
                  "clock": "CLOCK_MONOTONIC", "hz": round(1.0 / self.interval, 3)}
        self._emit(header)

    def _emit(self, obj):
        return self._emit_line(json.dumps(obj, separators=(",", ":"), ensure_ascii=True) + "\n")

    def _emit_line(self, line):
        if self.written + len(line) > self.max_bytes:
            return False
        self.lines.append(line)
        self.written += len(line)
        return True

    def flush(self):
        with self.lock:
            if self.file is None or not self.lines:
                return
            try:
                self.file.write("".join(self.lines))
                self.file.flush()
            except OSError:
                self.max_bytes = 0  # the disk refused: stop writing, keep counting
            self.lines = []

    def close(self):
        with self.lock:
            if self.file is None:
                return
            self.lines.append(json.dumps({"end": True, "dropped": self.dropped, "samples": self.samples}) + "\n")
        self.flush()
        with self.lock:
            try:
                self.file.close()
            except OSError:
                pass
            self.file = None

    # --- sampling -----------------------------------------------------------------------------
    def _frame_id(self, code, line):
        lines = self.frames.get(code)
        if lines is None:
            lines = self.frames[code] = {}
        fid = lines.get(line)
        if fid is None:
            fid = self.frame_count
            # co_qualname (3.11+) says which class a method belongs to: RandomResizedCrop.forward.
            name = getattr(code, "co_qualname", code.co_name)
            if not self._emit({"f": [fid, code.co_filename, name, line]}):
                return None
            self.frame_count += 1
            lines[line] = fid
        return fid

    def _stack_id(self, frame):
        ids = []
        while frame is not None and len(ids) < MAX_DEPTH:
            fid = self._frame_id(frame.f_code, frame.f_lineno)
            if fid is None:
                return None
            ids.append(fid)
            frame = frame.f_back
        key = tuple(ids)
        sid = self.stacks.get(key)
        if sid is None:
            sid = len(self.stacks)
            if not self._emit({"s": [sid, ids]}):
                return None
            self.stacks[key] = sid
        return sid

    def sample_once(self):
        """Takes one sample of every thread but the sampler's own. Returns the samples written."""
        now = self.clock()
        threads = {t.ident: t for t in threading.enumerate()}
        own = threading.get_ident()
        taken = 0
        with self.lock:
            for ident, frame in sys._current_frames().items():
                if ident == own:
                    continue
                # A thread still in the same frame at the same place, under the same caller, has the
                # same stack (a live frame's callers never change): waiting threads cost one lookup.
                # Frames are recognised by id, never kept: a kept frame would keep its locals
                # (tensors) alive.
                caller = frame.f_back
                key = (id(frame), frame.f_lasti, id(caller), caller.f_lasti if caller is not None else -1)
                last = self.last.get(ident)
                if last is not None and last[0] == key:
                    sid = last[1]
                else:
                    sid = self._stack_id(frame)
                    self.last[ident] = (key, sid)
                thread = threads.get(ident)
                tid = (thread.native_id if thread is not None else None) or ident
                if tid not in self.threads:
                    self.threads.add(tid)
                    self._emit({"thread": [tid, thread.name if thread is not None else ""]})
                if sid is None or not self._emit_line('{"t":%d,"tid":%d,"s":%d}\n' % (now, tid, sid)):
                    self.dropped += 1
                    continue
                taken += 1
            self.samples += taken
            if len(self.last) > 2 * len(threads) + 16:  # threads that ended
                self.last = {k: v for k, v in self.last.items() if k in threads}
        return taken

    def recording(self):
        if self.always:
            return True
        if not self.socket_dir:
            return False
        for pid in (self.pid, os.getppid()):
            if os.path.exists(os.path.join(self.socket_dir, "%d.capturing" % pid)):
                return True
        return False

    def _run(self):
        last_flush = time.monotonic()
        next_tick = time.monotonic()
        while not self.stopping.is_set():
            if not self.recording():
                if self.lines:
                    self.flush()  # the window ended: what it sampled must reach the file now
                self.stopping.wait(MARKER_CHECK_SECONDS)
                next_tick = time.monotonic()
                continue
            if self.file is None:
                self._open()
            self.sample_once()
            now = time.monotonic()
            if now - last_flush >= FLUSH_SECONDS:
                self.flush()
                last_flush = now
            next_tick += self.interval
            delay = next_tick - time.monotonic()
            if delay < 0:  # behind (a long GIL hold): skip the missed ticks rather than burst
                next_tick = time.monotonic()
                delay = 0
            self.stopping.wait(delay)
        self.close()

    def start(self):
        self.thread = threading.Thread(target=self._run, name="chokepoint-stacks", daemon=True)
        self.thread.start()

    def stop(self, timeout=1.0):
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(timeout)
        if self.file is not None:
            self.close()


_sampler = None


def _options():
    env = os.environ
    out_dir = env.get("CHOKEPOINT_PYSTACKS_DIR", "")
    if not out_dir:
        return None
    try:
        hz = float(env.get("CHOKEPOINT_PYSTACKS_HZ", "100"))
        max_mb = int(env.get("CHOKEPOINT_PYSTACKS_MAX_MB", "256"))
    except ValueError:
        hz, max_mb = 100.0, 256
    return {"out_dir": out_dir, "hz": hz, "always": env.get("CHOKEPOINT_PYSTACKS_ALWAYS") == "1",
            "socket_dir": env.get("CHOKEPOINT_SOCKET_DIR") or None, "max_bytes": max(0, max_mb) << 20}


def _start(options):
    global _sampler
    _sampler = StackSampler(**options)
    _sampler.start()


def _after_fork_in_child():
    # Only the forking thread survives a fork: the parent's sampler thread is gone. Start afresh,
    # with this process's own file.
    global _sampler
    try:
        options = _options()
        _sampler = None
        if options is not None:
            _start(options)
    except Exception:
        pass


def _at_exit():
    if _sampler is not None:
        try:
            _sampler.stop()
        except Exception:
            pass


def start_from_environment():
    """Starts the sampler when chokepoint-cli asked for it (CHOKEPOINT_PYSTACKS_DIR). Idempotent."""
    if _sampler is not None:
        return _sampler
    options = _options()
    if options is None:
        return None
    _start(options)
    os.register_at_fork(after_in_child=_after_fork_in_child)
    atexit.register(_at_exit)
    return _sampler
