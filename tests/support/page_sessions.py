"""The app as its page talks to the server, without a browser (httpx): uploads, events and their outputs."""
from __future__ import annotations

from pathlib import Path
import html
import httpx
import json
import re
import uuid


FORM = ["Tester", "Web-1", "chat", 7, 4096, "bfloat16", "", "https://example.com/m"]


def shown(markdown: str) -> str:
    """What a reader sees of the app's markdown: escapes removed."""
    return html.unescape(re.sub(r"\\(.)", r"\1", markdown))


class UploadRefused(RuntimeError):
    def __init__(self, response: httpx.Response):
        super().__init__(response.text)
        self.status, self.retry_after = response.status_code, response.headers.get("retry-after")


class PageSession:
    """One browser tab's session with the app, as its page talks to the server: files go
    to /upload, an event joins the queue by its function's index, the result comes on the
    session's event stream. Gradio keeps the page's state (the pre-submission's token)
    per session."""

    def __init__(self, url: str, address: str | None = None, cookie: str | None = None,
                 opened: tuple[str, ...] = ("submission",)):
        """`address`: the client's address as a trusted local proxy reports it (X-Forwarded-For);
        `cookie`: a Cookie header to send (a browser's saved sign-in); `opened`: the tabs built
        when first opened (lazy_tab) that the session opens at once (`open_tab`)."""
        self.url, self.session_hash = url, uuid.uuid4().hex[:11]
        headers = {**({"X-Forwarded-For": address} if address else {}), **({"Cookie": cookie} if cookie else {})}
        self.http = httpx.Client(base_url=url, timeout=300, headers=headers)
        self.config = self.http.get("config").json()
        # The page's components and events: the config's, then those of each tab built since.
        self.components, self.dependencies = list(self.config["components"]), list(self.config["dependencies"])
        self.functions = {d["api_name"]: d["id"] for d in self.dependencies if d.get("api_name")}
        for tab in opened:
            self.open_tab(tab)

    def open_tab(self, tab: str, data: list | tuple = ()) -> dict:
        """The tab `tab` built for this session, as the page's first open of it builds it (its
        flag `{tab}-opened` turned True: lazy_tab), from the page's values `data` (the build's
        inputs); its functions join `functions`. Returns the config of what was built."""
        flag = next(c["id"] for c in self.config["components"] if c["props"].get("elem_id") == f"{tab}-opened")
        build = next(d for d in self.config["dependencies"] if [flag, "change"] in d["targets"])
        response = self.http.post(f"gradio_api/run/{build['api_name']}", json={
            "data": list(data), "fn_index": build["id"], "session_hash": self.session_hash})
        response.raise_for_status()
        built = response.json()["render_config"]
        self.components += built["components"]
        self.dependencies += built["dependencies"]
        self.functions.update({d["api_name"]: d["id"] for d in built["dependencies"] if d.get("api_name")})
        return built

    def functions_run_by(self, elem_id: str, event: str) -> list[str]:
        """The names of the server functions the page runs when the component `elem_id` fires
        `event`: those of its listeners, then of the steps chained after each, in turn."""
        component = next(c["id"] for c in self.components if c["props"].get("elem_id") == elem_id)
        dependencies = self.dependencies
        steps = [d for d in dependencies if [component, event] in d["targets"]]
        for step in steps:  # grows as it goes: each step's chained steps follow it
            steps.extend(d for d in dependencies if d.get("trigger_after") == step["id"])
        return [d["api_name"] for d in steps if d["backend_fn"]]

    def upload(self, path: Path) -> dict:
        with open(path, "rb") as f:
            response = self.http.post("gradio_api/upload", files={"files": (path.name, f)})
        if response.status_code != 200:
            raise UploadRefused(response)
        return {"path": response.json()[0], "orig_name": path.name, "meta": {"_type": "gradio.FileData"}}

    def call(self, function: str, data: list) -> list:
        """The outputs of the event whose function is `function`; RuntimeError on an error."""
        joined = self.http.post("gradio_api/queue/join", json={
            "data": data, "fn_index": self.functions[function], "session_hash": self.session_hash,
            "event_data": None, "trigger_id": None})
        joined.raise_for_status()
        with self.http.stream("GET", "gradio_api/queue/data", params={"session_hash": self.session_hash}) as events:
            for line in events.iter_lines():
                message = json.loads(line[len("data:"):]) if line.startswith("data:") else {}
                if message.get("msg") == "process_completed":
                    if not message.get("success"):
                        raise RuntimeError(message.get("output"))
                    return message["output"]["data"]
        raise RuntimeError("the event stream ended without a result")


    def run(self, function: str, data: list) -> list:
        """The outputs of the event whose function is `function` and which skips the queue
        (`queue=False`): the page posts it and reads the answer."""
        response = self.http.post(f"gradio_api/run/{function}", json={
            "data": data, "fn_index": self.functions[function], "session_hash": self.session_hash})
        response.raise_for_status()
        return response.json()["data"]


def presubmit(session: PageSession, path: Path) -> str:
    """The status and the messages by the form and the file, as one text."""
    status, form_errors, file_errors, *_ = session.call("presubmit", [*FORM, session.upload(path)])
    return "\n".join((status, form_errors, file_errors))


def publish(session: PageSession) -> str:
    """The status after confirming the session's pre-submission."""
    return session.call("publish", [None])[0]
