"""``synapse index migrate [--to DSN] [--root DIR] [--json]``: copy the SQLite index into PostgreSQL.

Nothing is embedded: rows, row hashes, content keys and vectors are copied as
they are, so the workspace (and every other client of the database with the
same texts) answers its next search without re-embedding. ``--to`` defaults to
``SYNAPSE_INDEX_DSN``; prefer the variable, since a command line is visible to
other users of the machine. The DSN is never printed.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from synapse_server.cli.options import add_root, workspace_root
from synapse_server.errors import IndexUnavailable, InvalidInput
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.stores import index_settings

INDEX_NAME = "default"


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "index", help="manage the derived search index", description="Manage the derived search index."
    )
    sub = parser.add_subparsers(dest="index_command", required=True, metavar="SUBCOMMAND")
    migrate = sub.add_parser(
        "migrate",
        help="copy the SQLite index into a PostgreSQL database without re-embedding",
        description="Copy the workspace's SQLite index (rows and vectors) into PostgreSQL + pgvector.",
    )
    migrate.add_argument("--to", default=None, metavar="DSN", help="target database (default: $SYNAPSE_INDEX_DSN)")
    add_root(migrate)
    migrate.add_argument("--json", action="store_true", help="print a JSON object instead of text")
    migrate.set_defaults(handler=run_migrate)


def run_migrate(args: argparse.Namespace) -> int:
    from adapters.index.embedded import EmbeddedStore
    from adapters.index.migrate import MigrationError, migrate
    from adapters.index.pg_errors import IndexUnavailable as BackendUnavailable
    from adapters.index.pg_store import PgStore
    from adapters.index.settings import DSN_ENV

    workspace = load_workspace(workspace_root(args))
    dsn = args.to or os.environ.get(DSN_ENV, "").strip()
    if not dsn:
        raise InvalidInput(f"give the target database with --to DSN or {DSN_ENV}", parameter="to")
    source_file = workspace.cache_dir / f"index-{INDEX_NAME}.sqlite3"
    if not source_file.is_file():
        raise InvalidInput("this workspace has no SQLite index to migrate (any search builds it)", parameter="root")
    key = index_settings(workspace).workspace
    source = EmbeddedStore(source_file)
    try:
        target = PgStore.connect(dsn, f"{key}/{INDEX_NAME}")
        try:
            stats = migrate(source, target)
        finally:
            target.close()
    except BackendUnavailable as exc:
        raise IndexUnavailable(exc.message) from None
    except MigrationError as exc:
        raise InvalidInput(str(exc), parameter="root") from None
    finally:
        source.close()
    report = {
        "workspace": key,
        "encoder": stats.encoder,
        "copied": stats.copied,
        "vectors": stats.vectors,
        "removed": stats.removed,
        "skipped": stats.skipped,
        "embedded": 0,
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f"copied {stats.copied} rows and {stats.vectors} vectors ({stats.encoder}) into postgres workspace"
            f" {key}; removed {stats.removed} stale rows; embedded nothing"
        )
    return 0
