"""The peer, PyPI ``memdsl``, in its own virtual environment, driven as a subprocess (DESIGN §8).

The peer's import name is ours too, so it never enters our interpreter: it gets
a venv under the benchmark's work folder (``python -m venv`` + ``pip install``),
and every call runs ``<venv>/bin/python -I`` (isolated: neither the working
directory nor ``PYTHON*`` variables reach ``sys.path``) from outside this
repository. The driver checks which file ``memdsl`` was imported from.

Two costs are measured:

- **warm query**: one long-lived peer process loads the ``.mem`` workspace once
  (``Workspace.load``, like our index open) and answers queries sent one at a
  time over stdin with ``build_evidence_pack(...).render_text()``, exactly what
  ``memdsl query`` does; each query is timed inside the peer process, so pipe
  overhead is not charged to it;
- **CLI query**: ``memdsl query DIR -q ...`` as a user runs it: interpreter
  start, parsing every file, one query.

The peer's executor is naive term overlap *by design* (its README says so and
asks not to judge the format by it). These figures compare latency, not
quality; top-1 agreement is reported only as a sanity check.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from dev.synapse_bench.baselines.memfiles import Translation

DEFAULT_SPEC = "memdsl==0.4.0"
"""The release DESIGN's seed describes; pinned so the comparison does not move under a new upload."""

DRIVER = r"""
import json, sys, time
import memdsl
from memdsl import Workspace, build_evidence_pack
start = time.perf_counter()
ws = Workspace.load([sys.argv[1]])
load_s = time.perf_counter() - start
print(json.dumps({"version": memdsl.__version__, "module": memdsl.__file__, "load_s": load_s,
                  "declarations": len(ws.declarations)}), flush=True)
for line in sys.stdin:
    query = json.loads(line)
    start = time.perf_counter()
    pack = build_evidence_pack(ws, query, limit=int(sys.argv[2]))
    pack.render_text()
    ms = (time.perf_counter() - start) * 1000
    ranked = [d.id for d in pack.must + pack.should] + [s.declaration.id for s in pack.context]
    print(json.dumps({"ms": ms, "ids": ranked}), flush=True)
"""
_LINT_TOTALS = re.compile(r"(\d+) declarations?, (\d+) error\(s\), (\d+) warning\(s\)")


class PeerUnavailable(RuntimeError):
    """The peer could not be installed or started; the report says so and skips it."""


@dataclass(frozen=True, slots=True)
class Peer:
    """An installed peer: its venv and version."""

    venv: Path
    version: str

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def cli(self) -> Path:
        return self.venv / "bin" / "memdsl"


def install(venv: Path, spec: str = DEFAULT_SPEC, timeout_s: float = 600) -> Peer:
    """Create ``venv`` and ``pip install spec`` into it, unless that version is already there."""
    python = venv / "bin" / "python"
    wanted = spec.split("==", 1)[1] if "==" in spec else None
    version = _installed_version(python) if python.exists() else None
    if version is None or (wanted is not None and version != wanted):
        try:
            if not python.exists():
                subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
            subprocess.run(
                [str(python), "-m", "pip", "install", "--quiet", spec],
                check=True, capture_output=True, text=True, timeout=timeout_s, cwd=venv,
            )  # fmt: skip
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as error:
            detail = getattr(error, "stderr", None) or str(error)
            raise PeerUnavailable(f"could not install {spec}: {str(detail).strip()[-400:]}") from error
        version = _installed_version(python)
    if version is None:
        raise PeerUnavailable(f"{spec} installed but `import memdsl` fails in its venv")
    return Peer(venv, version)


def _installed_version(python: Path) -> str | None:
    out = subprocess.run(
        [str(python), "-I", "-c", "import memdsl; print(memdsl.__version__)"],
        capture_output=True, text=True, check=False, cwd=python.parent,
    )  # fmt: skip
    return out.stdout.strip() or None if out.returncode == 0 else None


def write_workspace(translation: Translation, folder: Path) -> Path:
    """Write the ``.mem`` files into an emptied ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.mem"):
        stale.unlink()
    for name, text in translation.files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def lint(peer: Peer, folder: Path) -> dict[str, Any]:
    """``memdsl lint`` over the translated files: they must parse and carry no errors."""
    start = time.perf_counter()
    out = subprocess.run([str(peer.cli), "lint", str(folder)], capture_output=True, text=True, check=False,
                         cwd=peer.venv)  # fmt: skip
    seconds = time.perf_counter() - start
    totals = _LINT_TOTALS.search(out.stdout)
    if totals is None:
        raise PeerUnavailable(f"memdsl lint did not finish: {(out.stderr or out.stdout).strip()[-400:]}")
    codes = sorted(set(re.findall(r"(?:error|warning)\[([a-z_]+)\]", out.stdout)))
    return {
        "declarations": int(totals[1]),
        "errors": int(totals[2]),
        "warnings": int(totals[3]),
        "codes": codes,
        "seconds": seconds,
    }


def cli_query(peer: Peer, folder: Path, query: str, limit: int = 10) -> float:
    """Seconds for one ``memdsl query`` run, start to exit."""
    start = time.perf_counter()
    subprocess.run([str(peer.cli), "query", str(folder), "-q", query, "--limit", str(limit)],
                   capture_output=True, check=True, cwd=peer.venv)  # fmt: skip
    return time.perf_counter() - start


class PeerSession:
    """One long-lived peer process over a loaded workspace; ``query`` returns (ms inside the peer, ranked ids)."""

    def __init__(self, peer: Peer, folder: Path, limit: int = 10) -> None:
        self._proc = subprocess.Popen(
            [str(peer.python), "-I", "-c", DRIVER, str(folder), str(limit)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=peer.venv,
        )  # fmt: skip
        self.info: dict[str, Any] = self._read()
        module = Path(self.info["module"]).resolve()
        if not module.is_relative_to(peer.venv.resolve()):
            self.close()
            raise PeerUnavailable(f"the peer imported memdsl from {module}, outside its venv")

    def query(self, text: str) -> tuple[float, list[str]]:
        assert self._proc.stdin is not None
        self._proc.stdin.write(json.dumps(text) + "\n")
        self._proc.stdin.flush()
        reply = self._read()
        return float(reply["ms"]), list(reply["ids"])

    def _read(self) -> dict[str, Any]:
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline()
        if not line:
            err = self._proc.stderr.read() if self._proc.stderr else ""
            raise PeerUnavailable(f"the peer process ended: {err.strip()[-400:]}")
        reply: dict[str, Any] = json.loads(line)
        return reply

    def close(self) -> None:
        if self._proc.stdin:
            self._proc.stdin.close()
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        for stream in (self._proc.stdout, self._proc.stderr):
            if stream:
                stream.close()

    def __enter__(self) -> PeerSession:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()
