"""Native work in worker threads, tracked so a process can end safely while some is still running.

Loading or running the ONNX embedding model, or numba compiling pynndescent, happens in worker
threads that a command may abandon (an error, Ctrl-C, an early return). Python's normal exit then
finalises the interpreter and runs C++ destructors under the running thread: onnxruntime aborts
the process ("terminate called without an active exception", exit 134). `leave` exits without
that teardown whenever such work is in flight. Standard library only: every hook passes here.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

_lock = threading.Lock()
_active = 0


@contextmanager
def native_work() -> Iterator[None]:
    """Mark the calling thread as inside native code that must not be torn down under it."""
    global _active
    with _lock:
        _active += 1
    try:
        yield
    finally:
        with _lock:
            _active -= 1


def in_flight() -> bool:
    """True while some thread is inside `native_work`."""
    with _lock:
        return _active > 0


def leave(code: int) -> NoReturn:
    """End the process with `code`: normally, or, with native work still running, flushed and at once.

    `os._exit` skips interpreter finalisation and C++ static destructors; our own files are never
    written by those threads, and stdout and stderr are flushed first, so nothing is lost.
    """
    if in_flight():
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # a closed pipe: nothing left to say
                pass
        os._exit(code)
    sys.exit(code)
