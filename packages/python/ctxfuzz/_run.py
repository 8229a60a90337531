"""`fuzz`: one `ctxfuzz fuzz --contract ... --sut CMD` run of the binary around a caller's function."""

import os
import shlex
import shutil
import signal
import subprocess
import sys
import sysconfig

from . import _function
from ._report import read_run


class CtxfuzzError(RuntimeError):
    """The CLI refused its arguments (exit 2: its one-line message) or ended unexpectedly."""


def fuzz(
    function,
    contract="repair",
    format="openai",  # noqa: A002 - the CLI's flag is --format
    *,
    seconds=None,
    runs=None,
    seed=None,
    marker=None,
    out=None,
    jobs=None,
    keep_all=False,
    timeout_ms=None,
    startup_ms=None,
):
    """Fuzzes `function` under `contract` in `format`, the CLI's `ctxfuzz fuzz --contract`.

    `function`: a function defined at the top level of a module, or a `"module:function"` text
    (its module is imported in the child only: a slow import costs the parent nothing). It is
    called as the contract asks (see `ctxfuzz.serve`). Every other argument is the CLI's flag of
    the same name: `seconds` is `--time` (the CLI's default, 10 s, when neither it nor `runs` is
    given), `runs` `--runs`, `seed` `--seed` (random and printed when None), `marker` `--marker`,
    `out` `--out` (default `findings/` under the current directory, as the CLI's), `jobs`
    `--jobs`, `keep_all` `--keep-all`, `timeout_ms` `--sut-timeout-ms`, `startup_ms`
    `--sut-startup-ms`. Contract and format names are the CLI's; it checks them.

    Returns a `Summary` when nothing is charged; raises `FuzzFailure` (an AssertionError) on a
    charged finding or a run that judged nothing, `CtxfuzzError` when the CLI refuses the
    arguments, and KeyboardInterrupt after Ctrl-C, once the CLI stopped its run and its programs.
    """
    target = _function.reference(function)
    command = [_binary(), "fuzz", "--contract", contract, "--format", format, "--sut", _sut(contract, target)]
    flags = {
        "--time": seconds,
        "--runs": runs,
        "--seed": seed,
        "--marker": marker,
        "--out": out,
        "--jobs": jobs,
        "--sut-timeout-ms": timeout_ms,
        "--sut-startup-ms": startup_ms,
    }
    for flag, value in flags.items():
        if value is not None:
            command += [flag, os.fspath(value) if flag == "--out" else str(value)]
    if keep_all:
        command.append("--keep-all")
    code, stdout, stderr = _run(command)
    if code == 2:
        raise CtxfuzzError(f"ctxfuzz fuzz refused the arguments: {stderr.strip()}")
    if code not in (0, 1):
        raise CtxfuzzError(f"ctxfuzz fuzz ended with exit status {code}: {stderr.strip()}")
    summary, failure = read_run(stdout, target, _explain)
    if code == 1:
        raise failure
    return summary


def _sut(contract, target):
    """The `--sut` command: this interpreter serving `target`, with the caller's sys.path.

    Everything the child needs is in the command, so the case files it leaves (which record it)
    replay from a plain shell: `ctxfuzz replay findings/...`. The entries under the interpreter's
    own prefixes (the standard library, the venv's site-packages) are left out: the same
    interpreter finds them itself.
    """
    own = tuple(os.path.join(prefix, "") for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix})
    entries = (os.path.abspath(entry or os.curdir) for entry in sys.path)
    path = os.pathsep.join(dict.fromkeys(e for e in entries if not os.path.join(e, "").startswith(own)))
    words = [
        "exec",
        "env",
        "PYTHONHASHSEED=0",
        f"PYTHONPATH={path}",
        sys.executable,
        "-m",
        "ctxfuzz.serve",
        "--contract",
        contract,
        target,
    ]
    return shlex.join(words)


def _binary():
    """The `ctxfuzz` binary the wheel installed beside this interpreter, else the one on PATH."""
    installed = os.path.join(sysconfig.get_path("scripts"), "ctxfuzz")
    found = installed if os.access(installed, os.X_OK) else shutil.which("ctxfuzz")
    if found is None:
        raise CtxfuzzError(
            f"no ctxfuzz binary: not in {os.path.dirname(installed)} (where `pip install ctxfuzz` "
            "puts it) nor on PATH"
        )
    return found


def _run(command):
    """Runs the CLI to its end: (exit status, stdout, stderr).

    An interrupt of this process (Ctrl-C, pytest's own) is passed on as SIGINT, the CLI's Ctrl-C:
    it stops starting cases, kills its programs' process groups and exits; this waits for that
    before raising the interrupt. A second interrupt sends a second SIGINT (the CLI then kills
    at once). Killing the CLI instead would leave the programs it started behind.
    """
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        stdout, stderr = process.communicate()
    except BaseException:
        while process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.communicate()
            except BaseException:  # noqa: BLE001 - another interrupt: send another SIGINT
                continue
        raise
    return process.returncode, stdout, stderr


def _explain(invariant):
    """The CLI's statement of what `invariant` promises (`ctxfuzz explain ID`, its first line)."""
    done = subprocess.run([_binary(), "explain", invariant], capture_output=True, text=True, check=False)
    return done.stdout.splitlines()[0] if done.returncode == 0 and done.stdout else invariant
