"""The worker's test-only job hook: it runs a ``module:function`` named by the environment, and ships none."""

from __future__ import annotations

import importlib.util

import pytest

from synapse_server.isolation.protocol import TEST_JOB_ENV
from synapse_server.isolation.worker import run_test_job
from synapse_server.navigation.request import NavigateRequest
from tests.support import REPOSITORY
from tests.support.worker_jobs import echo_result, job_env

REQUEST = NavigateRequest(question="Why?")


def test_a_named_job_is_imported_and_run_on_the_request() -> None:
    assert run_test_job("tests.support.worker_jobs:echo", REQUEST) == echo_result(REQUEST)


@pytest.mark.parametrize("job", ["echo", "tests.support.worker_jobs", ":echo", "tests.support.worker_jobs:"])
def test_a_job_that_is_not_module_colon_function_is_refused(job: str) -> None:
    with pytest.raises(ValueError, match=TEST_JOB_ENV):
        run_test_job(job, REQUEST)


def test_the_job_environment_names_the_function_and_puts_this_checkout_first_on_the_path() -> None:
    env = job_env("raise", {"PYTHONPATH": "/elsewhere", "KEEP": "1"})

    assert env[TEST_JOB_ENV] == "tests.support.worker_jobs:raise_"
    assert env["PYTHONPATH"].split(":") == [str(REPOSITORY), "/elsewhere"]
    assert env["KEEP"] == "1"


def test_an_unknown_job_name_is_refused_before_any_worker_starts() -> None:
    with pytest.raises(ValueError, match="unknown test job"):
        job_env("segfault-please")


@pytest.mark.parametrize("module", ["synapse_server.isolation.faults", "synapse_server.models.fake"])
def test_the_shipped_package_carries_no_test_only_module(module: str) -> None:
    assert importlib.util.find_spec(module) is None
