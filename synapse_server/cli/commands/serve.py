"""``synapse serve --root DIR [--write-free] [--model SPEC] [--check [--json]]``: the MCP stdio server.

The workspace and any ``--model`` are checked before the transport starts, so
a host that launches a misconfigured server sees a clear error (exit 2) in its
log instead of a server that fails on the first call. ``--check`` prints what
the server would serve - workspace, stores, model, index cache - and exits
without starting the transport or loading the embedding model.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import threading
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from synapse_server.actions.deps import WRITE_FREE_ENV, Deps, ServerSettings
from synapse_server.cli.options import add_root
from synapse_server.models import model_spec_origin, parse_model_spec
from synapse_server.models.spec import ENV_VAR as MODEL_ENV
from synapse_server.models.spec import TRUST_ENV
from synapse_server.workspace.config import find_workspace, load_workspace
from synapse_server.workspace.lint import lint_workspace
from synapse_server.workspace.stores import FAMILIES, index_settings, make_embedder, open_workspace_index

if TYPE_CHECKING:
    from adapters.index.embedder import TextEncoder

INDEX_FILE = "index-default.sqlite3"
log = logging.getLogger(__name__)


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "serve",
        help="run the MCP stdio server (one tool: synapse)",
        description="Serve the synapse tool over stdio for Claude Code, Cursor and other MCP hosts.",
    )
    add_root(parser)
    parser.add_argument(
        "--write-free",
        action="store_true",
        help=f"refuse every writing action (also {WRITE_FREE_ENV}=1 or write_free: true in the config)",
    )
    parser.add_argument(
        "--model", default=None, help=f"model spec for navigate, build and the lenses (over {MODEL_ENV} and the config)"
    )
    parser.add_argument("--check", action="store_true", help="print workspace, stores, model and index state; exit")
    parser.add_argument("--json", action="store_true", help="with --check: print a JSON object")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    root = Path(args.root) if args.root else find_workspace(Path.cwd())  # a server answers workspace_error per call
    workspace = load_workspace(root)
    encoder = make_embedder(workspace, check=True)  # a bad embedding_model is a config_error now, not on every search
    if args.model is not None:
        parse_model_spec(args.model)
    settings = ServerSettings.from_environment(workspace.root, write_free=args.write_free, model=args.model)
    origin = model_spec_origin(workspace.config.model, os.environ, settings.model, settings.default_model)
    if not origin.trusted:
        log.warning("%s", _model_line({"spec": origin.spec, "source": origin.source, "trusted": False}))
    if args.check:
        report = check_report(settings)
        print(json.dumps(report, indent=2) if args.json else "\n".join(report_lines(report)))
        return 0
    _load_in_background(encoder)  # while the MCP SDK imports: the first search finds the model loaded
    from synapse_server.mcp.server import serve

    serve(settings, embedder=encoder, embedder_spec=workspace.config.embedding_model)
    return 0


def _load_in_background(encoder: TextEncoder) -> None:
    """Start loading an ONNX encoder on a daemon thread (its session set-up runs in native code, beside the
    imports); a torch encoder stays lazy, so a server never imports torch before a search needs it. A load
    that fails here fails again, reported properly, where the first search uses the encoder."""
    from adapters.index.embedder import OnnxEmbedder

    if not isinstance(encoder, OnnxEmbedder):
        return

    def load() -> None:
        try:
            encoder.load()
        except Exception as exc:
            log.info("embedding model not preloaded: %s", type(exc).__name__)

    threading.Thread(target=load, name="synapse-model-load", daemon=True).start()


def check_report(settings: ServerSettings) -> dict[str, Any]:
    """What the server would serve, without starting it or loading the embedding model."""
    deps = Deps(
        ServerSettings(root=settings.root, write_free=settings.write_free, model=settings.model, prespawn=False)
    )
    try:
        workspace = deps.workspace()
        stores = deps.stores()
        counts = Counter(node.family for node in stores.nodes.values())
        origin = model_spec_origin(workspace.config.model, os.environ, settings.model, settings.default_model)
        cache = workspace.cache_dir / INDEX_FILE
        backend = index_settings(workspace)
        shared = backend.backend == "postgres"
        docs = _indexed_docs(deps) if shared or cache.exists() else None
        lint = lint_workspace(workspace)  # the same findings and counts `synapse lint` prints
        return {
            "workspace": str(workspace.root),
            "config": str(workspace.config_path.relative_to(workspace.root)) if workspace.config_path else "defaults",
            "write_free": deps.write_free(),
            "stores": {
                "nodes": {family: counts.get(family, 0) for family in FAMILIES},
                "projects": workspace.scoped_projects(),
                "diagnostics": lint.errors + lint.warnings,
                "errors": lint.errors,
                "warnings": lint.warnings,
                "info": lint.infos,
                "failures": [failure.detail for failure in stores.failures],
            },
            "model": {"spec": origin.spec, "source": origin.source, "trusted": origin.trusted},
            "embedding": {
                "spec": workspace.config.embedding_model or "minilm-onnx",
                "encoder": deps.embedder.model_id,
            },
            "index": {
                "cache": backend.describe() if shared else _relative(cache, workspace.root),
                "present": bool(docs) if shared else cache.exists(),
                "docs": docs,
                "nodes": len(stores.nodes),
                "complete": docs == len(stores.nodes),
            },
        }
    finally:
        deps.close()


def report_lines(report: dict[str, Any]) -> list[str]:
    stores, index = report["stores"], report["index"]
    nodes = ", ".join(f"{family} {count}" for family, count in stores["nodes"].items())
    if not index["present"]:
        state = "absent (built by the first search or navigate)"
    else:
        state = f"{index['docs']} of {index['nodes']} nodes indexed" + ("" if index["complete"] else " (a sync is due)")
    return [
        f"workspace: {report['workspace']} (config: {report['config']})",
        f"write-free: {'yes' if report['write_free'] else 'no'}",
        f"stores: {nodes}",
        f"projects in scope: {', '.join(stores['projects']) or 'none (memory only)'}",
        f"diagnostics: {stores['errors']} error(s), {stores['warnings']} warning(s), {stores['info']} info "
        "(see: synapse lint --verbose)",
        *(f"store failure: {detail}" for detail in stores["failures"]),
        _model_line(report["model"]),
        f"embedding: {report['embedding']['spec']} (encoder {report['embedding']['encoder']})",
        f"index cache: {index['cache']}: {state}",
    ]


def _model_line(model: dict[str, Any]) -> str:
    line = f"model: {model['spec']} (from {model['source']}, {'trusted' if model['trusted'] else 'NOT trusted'})"
    if model["spec"] == "host":
        line += "; navigate hands its prompt to the MCP host's own model as a pending turn (docs/models.md)"
    if not model["trusted"]:
        line += (
            f"; a workspace config may not start a process or reach a network on its own: navigate, build and the "
            f"lenses refuse it with config_error until you pass --model, set {MODEL_ENV} or set {TRUST_ENV}=1"
        )
    return line


def _indexed_docs(deps: Deps) -> int:
    """Count the cached docs; opening an existing cache loads no model (the embedder is lazy)."""
    with open_workspace_index(deps.workspace(), deps.embedder) as index:
        return len(index)


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()
