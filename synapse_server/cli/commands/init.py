"""``synapse init [--demo] DIR`` and ``synapse init --adopt [DIR] [--gitignore]``.

Plain init creates an empty workspace, ``--demo`` the complete demo
workspace, and ``--adopt`` reads what a repository already keeps (ADRs,
notes, MLflow runs, ``.mem`` files) in place, writing only ``.synapse/``.
After adopting it reads each source once and says, per source, how many files
it read and which it will skip and why, then any hints the kinds give.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from synapse_server.errors import InvalidInput
from synapse_server.workspace.adopt import adopt, adoption_report
from synapse_server.workspace.init import init_workspace, make_demo


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "init",
        help="create a workspace (or the demo workspace), or adopt a repository's existing knowledge",
        description=(
            "Create an empty, valid Synapse workspace in DIR, or with --demo the complete demo workspace, "
            "or with --adopt detect the ADRs, notes, MLflow runs and .mem files DIR already holds and write a "
            ".synapse/config.yaml that reads them in place (nothing else is changed)."
        ),
    )
    parser.add_argument("dir", metavar="DIR", nargs="?", default=None, help="the workspace folder (--adopt: default .)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--demo", action="store_true", help="write the momentum-research demo workspace instead")
    mode.add_argument("--adopt", action="store_true", help="read the repository's existing knowledge in place")
    parser.add_argument(
        "--gitignore", action="store_true", help="with --adopt: keep the cache in .angelo/ and add it to .gitignore"
    )
    parser.add_argument("--json", action="store_true", help="print a JSON object instead of text")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.adopt:
        return _adopt(args)
    if args.gitignore:
        raise InvalidInput(
            "--gitignore only applies with --adopt (plain init always ignores its cache)", parameter="gitignore"
        )
    if args.dir is None:
        raise InvalidInput("DIR is required (or use --adopt to adopt the current folder)", parameter="dir")
    if args.demo:
        make_demo(args.dir)
    else:
        init_workspace(args.dir)
    kind = "demo" if args.demo else "empty"
    if args.json:
        print(json.dumps({"workspace": args.dir, "kind": kind}))
    elif args.demo:
        print(f"demo workspace written to {args.dir}")
        print(f"see its seeded defects with: synapse lint --root {args.dir}")
    else:
        print(f"initialised an empty workspace in {args.dir}")
        print(f"check it with: synapse lint --root {args.dir}")
    return 0


def _adopt(args: argparse.Namespace) -> int:
    directory = args.dir or "."
    done = adopt(Path(directory), gitignore=args.gitignore)
    reports = adoption_report(done.root)
    cache = _shown_cache(done.cache_dir, done.root)
    if args.json:
        payload = {
            "workspace": directory,
            "kind": "adopted",
            "sources": [f.source.model_dump(exclude_none=True) | {"files": f.files} for f in done.findings],
            "config": ".synapse/config.yaml",
            "cache": cache,
            "gitignore_changed": done.gitignore_changed,
            "read": [report.model_dump(mode="json") for report in reports],
            "hints": list(done.hints),
        }
        print(json.dumps(payload))
        return 0
    if done.findings:
        print(f"found {len(done.findings)} source(s) in {directory}:")
        for finding in done.findings:
            print(f"  {finding.describe()}")
    else:
        print(f"found no ADR folder, vault, mlruns/ folder or .mem file in {directory}; the code store alone is read")
    print("wrote .synapse/config.yaml (nothing else in the repository was changed)")
    if reports:
        print("read once to check:")
        for report in reports:
            print(f"  {report.line()}")
    if done.hints:
        print("hints:")
        for hint in done.hints:
            print(f"  {hint}")
    if done.gitignore_changed:
        print("added .angelo/ to .gitignore (the index cache stays in the workspace)")
    print(f"index cache: {cache}")
    print(f"check it with: synapse lint --root {directory}")
    return 0


def _shown_cache(cache: Path, root: Path) -> str:
    try:
        return cache.relative_to(root).as_posix()
    except ValueError:
        return "the user cache folder (outside the repository)"
