"""Realistic existing-knowledge folders, written for these tests: ADR sets, a vault, .mem files, MLflow runs.

Every text here is original to this project (a fictional billing service), so
the fixtures carry no third-party prose. The MLflow runs are written by the
real ``mlflow`` package into a file-store ``mlruns/`` folder.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Synapse Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Synapse Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}

WHY_QUESTION = "Why does the ledger keep amounts in integer cents?"
WHY_ANSWER = (
    "We will keep every ledger amount in integer cents because floating point sums drifted by a cent "
    "in the March reconciliation."
)

NYGARD = {
    "0001-record-architecture-decisions.md": """\
# 1. Record architecture decisions

Date: 2024-01-08

## Status

Accepted

## Context

The billing team keeps rediscovering why the ledger service looks the way it does.

## Decision

We will write an architecture decision record for every choice that is expensive to reverse.

## Consequences

New engineers read the records before changing the ledger.
""",
    "0002-publish-invoices-as-pdf-files.md": """\
# 2. Publish invoices as PDF files

Date: 2024-01-15

## Status

Superseded by [4. Render invoices as HTML email](0004-render-invoices-as-html-email.md)

## Context

Customers asked for a printable invoice every month.

## Decision

We will generate a PDF file per invoice and attach it to the monthly statement.

## Consequences

The PDF renderer becomes a dependency of the billing run.
""",
    "0003-store-the-ledger-in-sqlite.md": """\
# 3. Store the ledger in SQLite

Date: 2024-02-02

## Status

Accepted

Amended by [5. Keep ledger amounts in integer cents](0005-keep-ledger-amounts-in-integer-cents.md)

## Context

One process writes the ledger and the nightly report reads it.

## Decision

We will store the ledger in a single SQLite database file with write-ahead logging.

## Consequences

Backups copy one file; a second writer would need a different store.
""",
    "0004-render-invoices-as-html-email.md": """\
# 4. Render invoices as HTML email

Date: 2024-03-01

## Status

Accepted

Supersedes [2. Publish invoices as PDF files](0002-publish-invoices-as-pdf-files.md)

## Context

Most customers opened the statement on a phone, where the PDF attachment was hard to read.

## Decision

We will render each invoice as an HTML email with a plain-text part.

## Consequences

The PDF renderer can be removed from the billing run.
""",
    "0005-keep-ledger-amounts-in-integer-cents.md": f"""\
# 5. Keep ledger amounts in integer cents

Date: 2024-03-20

## Status

Accepted

Amends [3. Store the ledger in SQLite](0003-store-the-ledger-in-sqlite.md)

## Context

Ledger amounts were stored as floating point numbers, and the March reconciliation was off by one cent.

## Decision

{WHY_ANSWER}

## Consequences

Every report divides by one hundred at the edge, never inside the ledger.
""",
}

MADR = {
    "0001-use-madr-for-decisions.md": """\
---
status: accepted
date: 2024-04-02
deciders: [Ana Ruiz, Tom Becker]
---
# Use MADR for decisions

## Context and Problem Statement

The payments group needs one template for recording how it decides.

## Decision Outcome

Chosen option: "MADR", because its headings match the questions reviewers ask.
""",
    "0002-choose-a-message-queue.md": """\
---
status: "superseded by [ADR-0003](0003-move-to-a-managed-queue.md)"
date: 2024-04-10
deciders: Ana Ruiz
---
# Choose a message queue

## Context and Problem Statement

Payment events must reach the fraud checker within a second.

## Considered Options

* A self-hosted broker
* A managed queue

## Decision Outcome

Chosen option: "A self-hosted broker", because the team already runs one for search.

### Consequences

* Bad, because someone must be on call for the broker.
""",
    "0003-move-to-a-managed-queue.md": """\
---
status: accepted
date: 2024-06-01
---
# Move to a managed queue

## Context and Problem Statement

The self-hosted broker paged the team eleven times in May.

## Decision Outcome

Chosen option: "A managed queue", because nobody has to be on call for it.
""",
    "0004-adopt-graphql-for-the-public-api.md": """\
---
status: rejected
date: 2024-06-15
---
# Adopt GraphQL for the public API

## Context and Problem Statement

Partners asked for fewer round trips.

## Decision Outcome

Rejected: the partners' clients are generated from an OpenAPI description.
""",
    "0005-retry-failed-captures.md": """\
# Retry failed card captures

* Status: proposed
* Deciders: Tom Becker
* Date: 2024-07-01

## Context and Problem Statement

Card captures fail about twice a week when the processor times out.

## Decision Outcome

Chosen option: "Retry three times with backoff", because most timeouts clear within a minute.
""",
    "README.md": "# Decisions\n\nThe payments group's decision records.\n",
    "template.md": "---\nstatus: {proposed | accepted}\n---\n# {short title}\n",
}

VAULT = {
    ".obsidian/app.json": '{"showLineNumber": true}\n',
    "Event sourcing.md": """\
---
tags: [architecture]
aliases: [ES]
---
# Event sourcing

The ledger records every change as an event and derives balances by replaying them.

## Replay

Replaying one year of ledger events takes about four minutes on the reporting host.
""",
    "Projections.md": """\
# Projections

A projection is a read model built by [[Event sourcing#Replay|replaying events]]. #architecture #reporting

Nightly balances come from the balance projection, see [[Daily/2024-05-02]].
""",
    "Daily/2024-05-02.md": """\
Rebuilt the balance projection after the schema change; [[ES]] replay finished in four minutes.

![[balance-chart.png]]

Follow up on [[Snapshot policy]] next week. #reporting
""",
}

MEM_TEAM = """\
entity Billing {
  kind: team
}

boundary privacy.no_card_numbers_in_logs {
  subject: Billing
  rule: "Never write a full card number to any log."
  force: hard
  scope: global
  exceptions: [pci_audit_export]
  guard {
    when_any: ["log", "trace"]
    deny_any: ["card number", "PAN"]
  }
  evidence { source: incident quote: "A debug log held full card numbers for two days." }
}

preference review.small_pull_requests {
  subject: Billing
  claim: "The billing team prefers pull requests under four hundred lines."
  force: soft
  scope: code_review
}

decision ledger.integer_cents {
  subject: Billing
  decision: "Ledger amounts are integer cents."
  supersedes: [ledger.float_amounts]
  evidence { source: adr quote: "floating point sums drifted by a cent" }
}

decision ledger.float_amounts {
  subject: Billing
  decision: "Ledger amounts are floating point numbers."
  status: superseded
}

open_issue ledger.currency_rounding {
  question: "How should amounts in currencies without cents be rounded?"
  conflicts_with: [ledger.integer_cents]
}
"""

MEM_BROKEN = """\
fact billing.oncall_rotation {
  claim: "The on-call rotation changes every Monday."
  force strong
}

state billing.backlog {
  claim: "Eight invoices wait for manual review."
  as_of: 2024-07-01
}
"""


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=root, env={**os.environ, **GIT_ENV}, check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


def write_files(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def make_repo(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "--quiet", "--initial-branch=main")
    return root


def commit_all(root: Path, message: str) -> str:
    git(root, "add", "--all")
    git(root, "commit", "--quiet", "-m", message)
    return git(root, "rev-parse", "HEAD")


def adr_repo(root: Path) -> Path:
    """A repository holding an adr-tools style ``doc/adr/`` folder and nothing else, committed."""
    make_repo(root)
    write_files(root / "doc" / "adr", NYGARD)
    commit_all(root, "Record the ledger decisions")
    return root


def madr_files(folder: Path) -> None:
    write_files(folder, MADR)


def vault_files(folder: Path) -> None:
    write_files(folder, VAULT)
    (folder / "balance-chart.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(64)))


def mem_files(folder: Path) -> None:
    write_files(folder, {"team.mem": MEM_TEAM, "broken.mem": MEM_BROKEN})
    write_files(
        folder / ".memdsl" / "proposals", {"p-20240701-000000-abcdef.mem": 'fact x.y {\n  claim: "proposed"\n}\n'}
    )


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def mlflow_runs(root: Path) -> dict[str, str]:
    """Write ``root/mlruns`` with the real MLflow file store; returns run ids by role.

    - ``hashed``: logs an artifact and a ``sha256/artifacts/<file>`` tag with its digest (verifies);
    - ``dataset``: logs a dataset whose digest is MLflow's own short digest (cannot be verified);
    - ``plain``: params and metrics only (nothing recorded to verify);
    - ``deleted``: deleted afterwards (must not be read).
    """
    os.environ["MLFLOW_ALLOW_FILE_STORE"] = "true"
    from mlflow.data.http_dataset_source import HTTPDatasetSource
    from mlflow.data.meta_dataset import MetaDataset
    from mlflow.entities import DatasetInput, InputTag, Metric, Param
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=(root / "mlruns").as_uri())
    experiment = client.create_experiment("invoice-latency")
    ids: dict[str, str] = {}
    artifact = Path(tempfile.mkdtemp()) / "latency.csv"  # staged outside the repository; MLflow copies it in
    artifact.write_text("invoices,seconds\n1000,42\n", encoding="utf-8")

    run = client.create_run(
        experiment,
        run_name="html-email-renderer",
        tags={"mlflow.note.content": "HTML rendering cut the billing run to 42 seconds."},
    )
    client.log_batch(
        run.info.run_id, metrics=[Metric("billing_run_seconds", 42.0, 0, 0)], params=[Param("renderer", "html")]
    )
    client.log_artifact(run.info.run_id, str(artifact))
    client.set_tag(run.info.run_id, "sha256/artifacts/latency.csv", sha256(artifact.read_bytes()))
    client.set_terminated(run.info.run_id)
    ids["hashed"] = run.info.run_id

    run = client.create_run(experiment, run_name="pdf-renderer")
    client.log_batch(
        run.info.run_id, metrics=[Metric("billing_run_seconds", 95.0, 0, 0)], params=[Param("renderer", "pdf")]
    )
    dataset = MetaDataset(HTTPDatasetSource("https://example.invalid/invoices.csv"), name="invoices")
    client.log_inputs(
        run.info.run_id, [DatasetInput(dataset._to_mlflow_entity(), [InputTag("mlflow.data.context", "training")])]
    )
    client.set_terminated(run.info.run_id)
    ids["dataset"] = run.info.run_id

    run = client.create_run(experiment, run_name="baseline")
    client.log_param(run.info.run_id, "renderer", "none")
    client.set_terminated(run.info.run_id)
    ids["plain"] = run.info.run_id

    run = client.create_run(experiment, run_name="mistake")
    client.delete_run(run.info.run_id)
    ids["deleted"] = run.info.run_id
    return ids
