"""A small client for doccano 1.8's REST API, over plain HTTP (requests).

Why not doccano-client: it pins pydantic<2, which cannot share an environment with
langchain-ollama (the LLM generators), and the server itself lives in a third
virtualenv (old pandas/SQLAlchemy). The dozen calls the workbench needs are simple
REST, documented in shared/notes/doccano.md: token login, project and label creation,
filepond upload + import task, and export task + zip download.

Texts hold personal data, so a server off this machine is refused unless the caller
opts in (`allow_remote=True`): the one guard of workbench.infra.local_guard decides, as for
Ollama, and every request goes to the URL it returned, through a session that ignores
proxy variables.
"""

from __future__ import annotations

import http.cookiejar
import io
import time
import zipfile
from dataclasses import dataclass

from workbench.infra.errors import MissingExtra, WorkbenchError
from workbench.infra.local_guard import local_session, local_url

_REFUSAL = ("doccano at {url} is not on this machine; the texts hold personal data, so pass "
            "--allow-remote (allow_remote=True) if you mean it")


@dataclass(frozen=True, slots=True)
class Project:
    id: int
    name: str


class DoccanoClient:
    def __init__(self, url: str, username: str, password: str, *, allow_remote: bool = False,
                 timeout: float = 30.0) -> None:
        # The guard first: nothing, not even an import, happens for a URL it refuses.
        self.url = local_url(url, "doccano", allow_remote=allow_remote, refusal=_REFUSAL)
        try:
            import requests  # noqa: F401
        except ImportError:
            raise MissingExtra("talking to doccano", "dashboard", "requests") from None
        self.timeout = timeout
        # trust_env=False: $HTTP_PROXY must not carry the texts away; no redirect off the machine either.
        self.http = local_session("doccano", allow_remote=allow_remote)
        # Keep no cookies: with the session cookie from login, doccano switches to session
        # auth and demands a CSRF token; the token header alone needs none.
        self.http.cookies.set_policy(http.cookiejar.DefaultCookiePolicy(allowed_domains=[]))
        self._login(username, password)

    # -- plumbing ----------------------------------------------------------------------
    def _call(self, method: str, path: str, *, expect=(200, 201), **kwargs):
        import requests
        try:
            response = self.http.request(method, self.url + path, timeout=self.timeout, **kwargs)
        except requests.ConnectionError:
            raise WorkbenchError(f"cannot reach doccano at {self.url} (nothing answers there); start one with "
                                 "`workbench doccano serve`, or pass --url") from None
        except requests.RequestException as exc:
            raise WorkbenchError(f"doccano at {self.url}: {exc}") from None
        if response.status_code not in expect:
            raise WorkbenchError(f"doccano {method} {path}: HTTP {response.status_code}: {response.text[:300]}")
        return response

    def _json(self, method: str, path: str, **kwargs):
        """The JSON answer of a call; WorkbenchError when the server is not doccano (HTML, no JSON)."""
        response = self._call(method, path, **kwargs)
        try:
            return response.json()
        except ValueError:
            raise WorkbenchError(f"doccano {method} {path} at {self.url}: the answer is not JSON "
                                 f"({response.text[:120]!r}); is this a doccano 1.8 server?") from None

    def _login(self, username: str, password: str) -> None:
        # Token auth: no cookies, no CSRF. Never call logout: it deletes the user's only token.
        answer = self._json("POST", "/v1/auth/login/", json={"username": username, "password": password})
        key = answer.get("key") if isinstance(answer, dict) else None
        if not key:
            raise WorkbenchError(f"doccano at {self.url}: the login answer holds no token; "
                                 "is this a doccano 1.8 server?")
        self.http.headers["Authorization"] = f"Token {key}"
        self.username = username

    def wait_task(self, task_id: str, timeout: float = 120.0) -> dict:
        """Poll a Celery task (import or export) until it is ready; its errors become ours."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status = self._json("GET", f"/v1/tasks/status/{task_id}")
            if status.get("error"):
                raise WorkbenchError(f"doccano task {task_id} failed: {status['error']}")
            if status.get("ready"):
                result = status.get("result") or {}
                if isinstance(result, dict) and result.get("error"):
                    raise WorkbenchError(f"doccano task {task_id}: {result['error']}")
                return result
            time.sleep(0.3)
        raise WorkbenchError(f"doccano task {task_id} not done after {timeout:.0f} s (is `doccano task` running?)")

    # -- projects and labels -----------------------------------------------------------
    def projects(self) -> list[Project]:
        data = self._json("GET", "/v1/projects", params={"limit": 1000})
        rows = data.get("results", data) if isinstance(data, dict) else data
        return [Project(p["id"], p["name"]) for p in rows]

    def create_project(self, name: str, description: str, guideline: str = "",
                       project_type: str = "SequenceLabeling") -> Project:
        """project_type: SequenceLabeling (error annotation) or Seq2seq (a review: a text per example)."""
        body = {"name": name, "description": description or name, "guideline": guideline,
                "project_type": project_type, "resourcetype": f"{project_type}Project",
                "collaborative_annotation": False, "allow_overlapping": False}
        p = self._json("POST", "/v1/projects", json=body)
        return Project(p["id"], p["name"])

    def labels(self, project: int) -> dict[str, int]:
        data = self._json("GET", f"/v1/projects/{project}/span-types")
        rows = data.get("results", data) if isinstance(data, dict) else data
        return {r["text"]: r["id"] for r in rows}

    def ensure_labels(self, project: int, labels: list[tuple[str, str]]) -> dict[str, int]:
        """Create the missing (name, "#rrggbb") span types; returns name → id."""
        have = self.labels(project)
        for name, color in labels:
            if name not in have:
                r = self._json("POST", f"/v1/projects/{project}/span-types",
                               json={"text": name, "background_color": color, "text_color": "#ffffff"})
                have[name] = r["id"]
        return have

    # -- data in and out ---------------------------------------------------------------
    def upload_jsonl(self, project: int, content: bytes, filename: str = "upload.jsonl",
                     task_type: str = "SequenceLabeling") -> dict:
        upload_id = self._call("POST", "/v1/fp/process/",
                               files={"filepond": (filename, content, "application/json")}).text.strip()
        task = self._json("POST", f"/v1/projects/{project}/upload",
                          json={"uploadIds": [upload_id], "format": "JSONL", "task": task_type,
                                "column_data": "text", "column_label": "label", "encoding": "utf_8"})
        return self.wait_task(task["task_id"])

    def count_examples(self, project: int) -> int:
        return self._json("GET", f"/v1/projects/{project}/examples", params={"limit": 1})["count"]

    def download_jsonl(self, project: int, timeout: float = 120.0) -> dict[str, list[str]]:
        """The project's JSONL export: file name in the zip (one per member) → lines."""
        task = self._json("POST", f"/v1/projects/{project}/download",
                          json={"format": "JSONL", "exportApproved": False})
        self.wait_task(task["task_id"], timeout)
        deadline = time.monotonic() + timeout
        while True:
            r = self._call("GET", f"/v1/projects/{project}/download", params={"taskId": task["task_id"]})
            # Until the file exists the answer is 200 with JSON {"status": "Not ready"}.
            if "json" not in r.headers.get("Content-Type", ""):
                break
            if time.monotonic() > deadline:
                raise WorkbenchError(f"doccano export of project {project} not ready after {timeout:.0f} s")
            time.sleep(0.3)
        out = {}
        with zipfile.ZipFile(io.BytesIO(r.content)) as z:
            for name in z.namelist():
                if name.endswith(".jsonl"):
                    out[name] = z.read(name).decode("utf-8").split("\n")  # not splitlines: see workbench.infra.jsonl
        return out
