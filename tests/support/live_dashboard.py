"""The installed ``synapse dashboard`` as a real process on 127.0.0.1, and plain HTTP to it.

:func:`live_dashboard` starts it, reads the URL it prints and keeps its stderr
(one thread reads every line, so the access log never fills the pipe); tests
wait on a line appearing there rather than on time passing. :class:`Session`
is one logged-in browser as the server sees it: the cookie and the form token
of the pages it was shown.
"""

from __future__ import annotations

import http.client
import os
import re
import resource
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode, urlsplit

SYNAPSE = Path(sys.executable).parent / "synapse"
START_S = 240.0
FORM_TOKEN = re.compile(r'name="form_token" value="([^"]+)"')


@dataclass
class Live:
    """One running dashboard: its process, port, token and every stderr line so far."""

    process: subprocess.Popen[str]
    port: int = 0
    token: str = ""
    lines: list[str] = field(default_factory=list)
    changed: threading.Condition = field(default_factory=threading.Condition)

    def wait_for(self, pattern: str, timeout_s: float = 60.0) -> str:
        """The first stderr line matching ``pattern``, waiting for it (bounded) while the process lives."""
        found = re.compile(pattern)
        with self.changed:
            seen = 0
            while True:
                for line in self.lines[seen:]:
                    if found.search(line):
                        return line
                seen = len(self.lines)
                if self.process.poll() is not None:
                    raise AssertionError(f"the dashboard exited ({self.process.returncode}):\n{self.log()}")
                if not self.changed.wait(timeout_s):
                    raise AssertionError(f"no stderr line matched {pattern!r} in {timeout_s} s:\n{self.log()}")

    def log(self) -> str:
        with self.changed:
            return "".join(self.lines)

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            with self.changed:
                self.lines.append(line)
                self.changed.notify_all()
        self.process.wait()  # stderr closed: the process is ending; waiters then see its exit status
        with self.changed:
            self.changed.notify_all()


@contextmanager
def live_dashboard(
    root: Path, *args: str, env: Mapping[str, str] | None = None, nofile: int | None = None
) -> Iterator[Live]:
    """``synapse dashboard --root ROOT --port 0 ARGS``, up and serving; ``nofile`` caps its descriptors."""

    def limit() -> None:
        if nofile is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    process = subprocess.Popen(
        [str(SYNAPSE), "dashboard", "--root", str(root), "--port", "0", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        errors="replace",
        env=dict(os.environ if env is None else env),
        preexec_fn=limit,
    )
    live = Live(process)
    reader = threading.Thread(target=live._read, daemon=True)
    reader.start()
    try:
        url = re.search(r"open (http://127\.0\.0\.1:\d+/\?token=\S+)", live.wait_for(r"open http://", START_S))
        assert url is not None
        parts = urlsplit(url.group(1))
        live.port = parts.port or 0
        live.token = parts.query.removeprefix("token=")
        live.wait_for("Application startup complete", START_S)
        yield live
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)
        reader.join(timeout=30)
        if process.stderr is not None:
            process.stderr.close()


@dataclass(frozen=True)
class Reply:
    status: int
    headers: dict[str, str]
    text: str


def fetch(
    port: int,
    method: str,
    path: str,
    *,
    headers: Mapping[str, str] | None = None,
    form: Mapping[str, str] | None = None,
) -> Reply:
    """One HTTP request on a fresh connection; a form is sent urlencoded, as a browser posts it."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        sent = dict(headers or {})
        body = None
        if form is not None:
            body = urlencode(form).encode()
            sent["content-type"] = "application/x-www-form-urlencoded"
        connection.request(method, path, body=body, headers=sent)
        response = connection.getresponse()
        text = response.read().decode("utf-8", "replace")
        return Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, text)
    finally:
        connection.close()


@dataclass
class Session:
    """A logged-in client of one live dashboard: its cookie, and the form token its pages carry."""

    live: Live
    cookie: str = ""

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.live.port}"

    def login(self) -> Session:
        first = fetch(self.live.port, "GET", f"/?token={self.live.token}")
        assert first.status == 303, first
        self.cookie = first.headers["set-cookie"].split(";", 1)[0]
        return self

    def get(self, path: str, headers: Mapping[str, str] | None = None) -> Reply:
        return fetch(self.live.port, "GET", path, headers={"cookie": self.cookie, **(headers or {})})

    def post(self, path: str, form: Mapping[str, str], headers: Mapping[str, str] | None = None) -> Reply:
        sent = {"cookie": self.cookie, "origin": self.origin, **(headers or {})}
        return fetch(self.live.port, "POST", path, headers=sent, form=form)

    def form_token(self, path: str = "/") -> str:
        """The form token a page of this dashboard carries (what a real page's forms post back)."""
        page = self.get(path)
        found = FORM_TOKEN.search(page.text)
        assert found is not None, f"no form token on {path}"
        return found.group(1)
