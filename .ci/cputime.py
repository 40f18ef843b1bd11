"""Run a command and report the CPU time of everything it started, detached daemons included.

``/usr/bin/time`` counts only the children its command waited for: a daemon that detaches
(``loomlint daemon``, ``dmypy``) is reparented to init, and its CPU is lost. This script makes
itself a child subreaper (Linux ``PR_SET_CHILD_SUBREAPER``): orphaned descendants are
reparented to it instead, it waits for them, and their CPU time is added to its children's.

    python3 .ci/cputime.py [--label NAME] [--linger SECONDS] -- COMMAND...

It prints one line on stderr, ``cputime: NAME user=...s sys=...s cpu=...s wall=...s
load=a,b,c->a,b,c``, and exits with the command's status. Descendants still alive ``--linger``
seconds after the command ended are named (a leaked process is a defect of its own) and not
waited for: their CPU until then is not counted.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import resource
import signal
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--label", default="")
    parser.add_argument("--linger", type=float, default=30.0)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command")
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        print(
            "cputime: prctl(PR_SET_CHILD_SUBREAPER) failed: daemons are not counted",
            file=sys.stderr,
        )
    load_before = os.getloadavg()
    started = time.monotonic()
    child = subprocess.Popen(command)
    # A Ctrl-C reaches the whole foreground group; the command handles it, we wait for it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    status = child.wait()
    ended = time.monotonic()
    leaked = _reap_orphans(args.linger)
    wall = time.monotonic() - started
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    load_after = os.getloadavg()
    label = f"{args.label} " if args.label else ""
    print(
        f"cputime: {label}user={usage.ru_utime:.1f}s sys={usage.ru_stime:.1f}s "
        f"cpu={usage.ru_utime + usage.ru_stime:.1f}s wall={ended - started:.1f}s "
        f"(reaped at {wall:.1f}s) load={_load(load_before)}->{_load(load_after)} "
        f"status={status}",
        file=sys.stderr,
    )
    for pid, name in leaked:
        print(
            f"cputime: still running {args.linger:.0f} s after the command: {pid} {name}",
            file=sys.stderr,
        )
    return status


def _reap_orphans(linger: float) -> list[tuple[int, str]]:
    """Wait for every orphan reparented to us, for at most ``linger`` seconds."""
    deadline = time.monotonic() + linger
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return []
        if pid != 0:
            continue
        if time.monotonic() >= deadline:
            return [(pid, _name(pid)) for pid in _children()]
        time.sleep(0.1)


def _children() -> list[int]:
    me = str(os.getpid())
    found: list[int] = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[1] == me:
                found.append(int(entry))
    return found


def _name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return cmdline.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


def _load(values: tuple[float, float, float]) -> str:
    return ",".join(f"{value:.2f}" for value in values)


if __name__ == "__main__":
    sys.exit(main())
