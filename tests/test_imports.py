"""PyPI has unrelated packages named ``memdsl`` and ``adapters``: ours must win."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_memdsl_and_adapters_resolve_inside_this_repository() -> None:
    import adapters
    import memdsl
    import synapse_server

    for module in (memdsl, adapters, synapse_server):
        assert module.__file__ is not None
        assert Path(module.__file__).resolve().is_relative_to(REPO), module.__file__


def test_memdsl_exposes_the_facade() -> None:
    import memdsl

    for name in ("parse_address", "format_address", "parse_render", "parse_response", "parse_output", "serialize"):
        assert callable(getattr(memdsl, name)), name
    assert issubclass(memdsl.MemDSLParseError, ValueError)


def test_the_protocol_package_imports_no_io_or_model_libraries() -> None:
    code = "import sys, memdsl; bad = {'git', 'torch', 'sqlite3', 'sentence_transformers', 'yaml'} & set(sys.modules); print(sorted(bad))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "[]"


def test_the_navigation_engine_reads_no_workspace_store_or_index() -> None:
    # The engine floor is pure: the turn's I/O edge (synapse_server.isolation.turn) loads config, stores and
    # index, builds the tether resolvers (GitPython) and hands the engine values. Importing the whole engine
    # must not pull any of them in.
    code = (
        "import sys, pkgutil, importlib, synapse_server.navigation as nav\n"
        "for m in pkgutil.iter_modules(nav.__path__): importlib.import_module(f'synapse_server.navigation.{m.name}')\n"
        "bad = {'synapse_server.workspace.stores', 'synapse_server.isolation.turn', 'synapse_server.workspace.config', 'adapters.index',"
        " 'sqlite3', 'git', 'adapters.resolvers'} & set(sys.modules)\n"
        "print(sorted(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "[]"
