"""How a memactors process ends: safely while native work runs in a worker thread, and at once on Ctrl-C.

Loading or running the ONNX embedding model, or numba compiling pynndescent, happens in worker
threads that a command may abandon (an error, Ctrl-C, an early return). Python's normal exit then
finalises the interpreter and runs C++ destructors under the running thread: onnxruntime aborts
the process ("terminate called without an active exception", exit 134). `leave` exits without
that teardown whenever such work is in flight. Standard library only; imported by the commands that
load a model or handle Ctrl-C themselves, never on a hook's path.
"""

from __future__ import annotations

import os
import signal
import sys
import threading

_lock = threading.Lock()
_active = 0
_interrupted = False
_dropped = False
_hooked = False


class native_work:  # noqa: N801 - used as `with native_work():`, like a function
    """Mark the calling thread as inside native code that must not be torn down under it."""

    def __enter__(self) -> None:
        global _active
        with _lock:
            _active += 1

    def __exit__(self, *exc: object) -> None:
        global _active
        with _lock:
            _active -= 1


def in_flight() -> bool:
    """True while some thread is inside `native_work`."""
    with _lock:
        return _active > 0


def mark_interrupted() -> None:
    """Record that a Ctrl-C was handled: `leave` then ends the process without finalisation.

    CPython remembers a KeyboardInterrupt that passed through C code running Python source (pybind11
    modules do) and, at a normal exit, kills itself with SIGINT even though we handled it: the
    documented exit code would turn into a signal death now and then.
    """
    global _interrupted
    _interrupted = True


def remember_dropped_interrupts() -> None:
    """From now on a KeyboardInterrupt Python drops is remembered (`interrupt_dropped`), not printed.

    Python cannot raise out of a callback it runs itself (a weakref callback of the import machinery,
    a destructor): a Ctrl-C landing there becomes "Exception ignored in ..." and its traceback on
    stderr, and the command never hears of it; a daemon would go on watching. Such drops go through
    `sys.unraisablehook`, which this replaces; Ctrl-C's own handler stays Python's (trio relies on it).
    """
    global _hooked
    if _hooked:
        return
    _hooked = True
    previous = sys.unraisablehook

    def hook(unraisable: object) -> None:
        global _dropped
        if isinstance(getattr(unraisable, "exc_value", None), KeyboardInterrupt):
            _dropped = True
            return
        previous(unraisable)  # type: ignore[arg-type]

    sys.unraisablehook = hook


def interrupt_dropped() -> bool:
    """True once a Ctrl-C's KeyboardInterrupt was dropped by Python after `remember_dropped_interrupts`."""
    return _dropped


def leave(code: int) -> NoReturn:  # noqa: F821 - string annotation, no `typing` import
    """End the process with `code`: normally, or, with native work still running (or after a handled
    Ctrl-C), flushed and at once.

    `os._exit` skips interpreter finalisation and C++ static destructors; our own files are never
    written by those threads, and stdout and stderr are flushed first, so nothing is lost.
    """
    # the command is done and has said so: a Ctrl-C now must not turn its exit code into a signal death
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if in_flight() or _interrupted:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # a closed pipe: nothing left to say
                pass
        os._exit(code)
    sys.exit(code)


def exit_on_interrupt(code: int, message: str) -> None:
    """From now on, Ctrl-C prints `message` and ends the process at once with `code`.

    For commands that write nothing, or only by temporary file and rename: a KeyboardInterrupt
    raised into the main thread while a worker thread imports or loads the model can leave
    Python's import lock held, and the command then hangs instead of ending. Main thread only.
    """
    def handler(signum: int, frame: object) -> None:
        try:
            sys.stderr.write(message + "\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        os._exit(code)

    signal.signal(signal.SIGINT, handler)
