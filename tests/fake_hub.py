"""A local stand-in for the Hugging Face Hub: the HTTP endpoints the real `huggingface_hub`
client (and `datasets`) call for dataset repos, served over real git repositories on disk.

    hub = FakeHub(tmp_path / "hub", token="hf_test"); hub.start()
    hub.create_repo("owner/name")                  # one commit holding .gitattributes
    os.environ["HF_ENDPOINT"] = hub.url

Files follow the Hub's storage rules: a new repo's `.gitattributes` is the Hub's default for
datasets (Parquet, NumPy, zip, ... stored with LFS); `preupload` answers "lfs" for a path
those patterns match, for a binary sample (a NUL byte in its first 512 bytes) and for a file
over 10 MB, and a commit that sends such a file as a regular one is refused with HTTP 400, as
the Hub refuses binary files outside LFS. LFS files go through the LFS batch API (basic
transfer: one PUT, then verify); git keeps the pointer file, the tree lists the `lfs` oid
and size, and downloads answer the content with `X-Linked-Etag`/`X-Linked-Size`. It does not
speak Xet (the Hub's newer storage, which huggingface_hub uses when hf_xet is installed): the
tests set HF_HUB_DISABLE_XET=1 (conftest.py), so the client takes the LFS batch path it takes
without hf_xet. Also answered as the Hub does: the commit listing, refs, create_repo,
create_branch (commits go to any branch) and whoami, for an OAuth token or the API token
(the account `token_account`). Not done: pull requests, tags, multipart LFS uploads, private
repos, gated repos, rate limits, the dataset viewer.

Commits follow the Hub's rules: `parentCommit` must be the branch head (else HTTP 412),
and the branch moves by compare-and-swap (`git update-ref NEW OLD`), so a commit lands
whole or not at all. `fail_next_commits` makes the next commits fail with HTTP 500 before
anything is written; `fail_after_next_commits` makes them land and then answer HTTP 500 (a
commit whose answer is lost); `fail_next_tree_listings` makes the next file listings fail with
HTTP 400 (a status the client does not retry); `unreachable_from_commit` = n makes the n-th
commit from now (1: the next) and every request after it find the hub unreachable, their
connections dropped unanswered (`unreachable`, until set back to False): the network lost
between two commits. Writes need `Authorization: Bearer <token>`; reads are public.
`requests` counts the HTTP requests answered (`requests_by_route`: by handler), `bytes_sent`
their bodies' bytes and `downloaded` lists the files downloaded (path, in order); `latency`
(seconds, default 0) delays every answer, as a distant Hub would.

It also plays the Hub's OpenID provider, as Gradio's sign-in (authlib) and huggingface_hub's
`whoami` use it: `/.well-known/openid-configuration`, `/oauth/authorize` (approves at once
the account the browser is signed in to the hub as: the `fake_hub_account` cookie, which a
test sets on `hub.url`), `/oauth/token` (the client's id and secret, an access token and an
RS256-signed ID token), `/oauth/userinfo`, `/oauth/jwks` and `/api/whoami-v2` (the account
and its organizations):

    hub.add_account("alice", orgs=["alice-lab"])
    OPENID_PROVIDER_URL=hub.url OAUTH_CLIENT_ID=hub.client_id OAUTH_CLIENT_SECRET=hub.client_secret
"""
from __future__ import annotations

import base64
import fnmatch
import hashlib
import json
import os
import re
import secrets
import subprocess
import sys
import threading
import time
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlencode, urlparse

import huggingface_hub.constants
from joserfc import jwt
from joserfc.jwk import KeySet, RSAKey

# No Xet here: huggingface_hub uploads LFS files through the LFS batch API, as without hf_xet
# (the environment for the processes the tests start, the constant for this one).
os.environ["HF_HUB_DISABLE_XET"] = "1"
huggingface_hub.constants.HF_HUB_DISABLE_XET = True

GIT_ENV = {"GIT_AUTHOR_NAME": "hub", "GIT_AUTHOR_EMAIL": "hub@localhost", "GIT_COMMITTER_NAME": "hub",
           "GIT_COMMITTER_EMAIL": "hub@localhost"}
REPO = r"(?P<repo>[^/]+/[^/]+)"
REV = r"(?P<rev>[^/]+)"
COMMIT_PATH = rf"/api/datasets/{REPO}/commit/{REV}"
LFS_LIMIT = 10 * 1000 * 1000  # bytes: larger files must be LFS on the Hub
POINTER_SIZES = (120, 140)  # bytes an LFS pointer file can have (only such blobs are read to look)
# The .gitattributes the Hub writes into a new dataset repo (its LFS patterns).
HUB_GITATTRIBUTES = "".join(f"{pattern} filter=lfs diff=lfs merge=lfs -text\n" for pattern in (
    "*.7z", "*.arrow", "*.bin", "*.bz2", "*.ckpt", "*.ftz", "*.gz", "*.h5", "*.joblib", "*.lfs.*", "*.lz4",
    "*.mds", "*.mlmodel", "*.model", "*.msgpack", "*.npy", "*.npz", "*.onnx", "*.ot", "*.parquet", "*.pb",
    "*.pickle", "*.pkl", "*.pt", "*.pth", "*.rar", "*.safetensors", "saved_model/**/*", "*.tar.*", "*.tar",
    "*.tflite", "*.tgz", "*.wasm", "*.xz", "*.zip", "*.zst", "*tfevents*", "*.mp3", "*.ogg", "*.wav", "*.jpg",
    "*.jpeg", "*.png", "*.webp"))


def lfs_pointer(sha256: str, size: int) -> bytes:
    return f"version https://git-lfs.github.com/spec/v1\noid sha256:{sha256}\nsize {size}\n".encode()


def parsed_pointer(data: bytes) -> tuple[str, int] | None:
    """(sha256, size) of an LFS pointer file's bytes, else None."""
    found = re.fullmatch(rb"version https://git-lfs.github.com/spec/v1\noid sha256:([0-9a-f]{64})\nsize (\d+)\n", data)
    return (found[1].decode(), int(found[2])) if found else None


class HubError(Exception):
    def __init__(self, status: int, message: str, code: str | None = None):
        super().__init__(message)
        self.status, self.message, self.code = status, message, code


class GitRepo:
    def __init__(self, path: Path):
        self.path = path

    def git(self, *args, input: bytes | None = None, env: dict | None = None) -> bytes:
        out = subprocess.run(["git", "--git-dir", str(self.path), *args], input=input, capture_output=True,
                             env={**os.environ, **GIT_ENV, **(env or {})})
        if out.returncode:
            raise subprocess.CalledProcessError(out.returncode, args, out.stdout, out.stderr)
        return out.stdout

    def resolve(self, rev: str) -> str:
        try:
            return self.git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").decode().strip()
        except subprocess.CalledProcessError:
            raise HubError(404, f"Invalid rev id: {rev}", "RevisionNotFound")

    def entries(self, sha: str, path: str = "", recursive: bool = True) -> list[dict]:
        """Files and folders under `path` at commit `sha`, as the Hub's tree API lists them."""
        args = ["ls-tree", "-l", "-z"] + (["-r", "-t"] if recursive else [])
        target = f"{sha}:{path}" if path else sha
        try:
            raw = self.git(*args, target)
        except subprocess.CalledProcessError:
            raise HubError(404, f"Entry not found: {path}", "EntryNotFound")
        out = []
        for line in filter(None, raw.decode().split("\0")):
            meta, name = line.split("\t", 1)
            _, kind, oid, size = meta.split()
            full = f"{path}/{name}" if path else name
            if kind == "tree":
                out.append({"type": "directory", "oid": oid, "size": 0, "path": full})
                continue
            entry = {"type": "file", "oid": oid, "size": int(size), "path": full}
            pointer = parsed_pointer(self.git("cat-file", "blob", oid)) if POINTER_SIZES[0] <= int(size) <= POINTER_SIZES[1] else None
            if pointer:
                entry.update(size=pointer[1], lfs={"oid": pointer[0], "size": pointer[1], "pointerSize": int(size)})
            out.append(entry)
        return out

    def must_be_lfs(self, sha: str, path: str, size: int, sample: bytes) -> bool:
        """Whether the Hub stores this file with LFS: a pattern of the repo's .gitattributes
        matches it, its sample is binary or it is over the size limit."""
        try:
            attributes = self.blob(sha, ".gitattributes")[1].decode()
        except HubError:
            attributes = ""
        patterns = [line.split()[0] for line in attributes.splitlines() if "filter=lfs" in line]
        name = path.rsplit("/", 1)[-1]
        return (size > LFS_LIMIT or b"\0" in sample[:512]
                or any(fnmatch.fnmatch(path if "/" in p else name, p) for p in patterns))

    def blob(self, sha: str, path: str) -> tuple[str, bytes]:
        try:
            oid = self.git("rev-parse", f"{sha}:{path}").decode().strip()
            return oid, self.git("cat-file", "blob", oid)
        except subprocess.CalledProcessError:
            raise HubError(404, f"Entry not found: {path}", "EntryNotFound")

    def commit(self, parent: str, adds: dict[str, bytes], deletes: list[str], message: str,
               branch: str = "main") -> str:
        """A commit on top of `parent`; raises HubError(412) if the branch moved meanwhile."""
        index = self.path / f"index-{threading.get_ident()}"
        env = {"GIT_INDEX_FILE": str(index)}
        try:
            self.git("read-tree", parent, env=env)
            existing = self.git("ls-files", "-z", env=env).decode().split("\0")
            gone = [p for p in existing if p and any(p == d or p.startswith(d.rstrip("/") + "/") for d in deletes)]
            for d in deletes:
                if d not in gone and not any(p.startswith(d.rstrip("/") + "/") for p in gone):
                    raise HubError(404, f"A file with this name doesn't exist: {d}", "EntryNotFound")
            info = [f"0 {'0' * 40}\t{p}" for p in gone]  # mode 0 removes the entry
            for path, content in adds.items():
                oid = self.git("hash-object", "-w", "--stdin", input=content).decode().strip()
                info.append(f"100644 {oid}\t{path}")
            if info:
                self.git("update-index", "--add", "--index-info", input="\n".join(info).encode() + b"\n", env=env)
            tree = self.git("write-tree", env=env).decode().strip()
            new = self.git("commit-tree", tree, "-p", parent, "-m", message).decode().strip()
            try:
                self.git("update-ref", f"refs/heads/{branch}", new, parent)
            except subprocess.CalledProcessError:
                raise HubError(412, "A commit has happened since. Please refresh and try again.")
            return new
        finally:
            index.unlink(missing_ok=True)


class QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        """A client gone mid-answer (a process stopped while downloading) is no error."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class FakeHub:
    def __init__(self, root: Path, token: str = "hf_test_token", token_account: str = "leaderboard-admin"):
        self.root, self.token, self.token_account = Path(root), token, token_account
        self.root.mkdir(parents=True, exist_ok=True)
        self.lfs_objects = self.root / "lfs-objects"  # uploaded LFS contents, by sha256
        self.lfs_objects.mkdir(exist_ok=True)
        self.fail_next_commits = 0
        self.fail_after_next_commits = 0
        self.fail_next_tree_listings = 0
        self.unreachable_from_commit = 0
        self.unreachable = False  # every request's connection dropped without an answer
        self.commits = 0  # successful commits, all repos
        self.rejected = 0  # commits refused because their parent was not the head
        self.latency = 0.0  # seconds every answer waits
        self.requests = 0  # requests answered, all routes
        self.requests_by_route: dict[str, int] = {}  # handler name -> requests answered
        self.bytes_sent = 0  # bytes of the answers' bodies
        self.downloaded: list[str] = []  # paths of the files downloaded (GET), in order
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        # The OpenID provider: accounts with their organizations, one registered OAuth app.
        self.accounts: dict[str, list[str]] = {}
        self.client_id, self.client_secret = "fake-hub-oauth-app", secrets.token_hex(16)
        self._codes: dict[str, dict] = {}  # authorization code -> what it grants, used once
        self._access_tokens: dict[str, str] = {}  # OAuth access token -> account
        self._signing_key = RSAKey.generate_key(2048, parameters={"kid": "fake-hub"})
        self.sign_ins = 0  # ID tokens issued

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def repo(self, repo_id: str) -> GitRepo:
        path = self.root / f"{repo_id}.git"
        if not path.is_dir():
            raise HubError(404, f"Repository not found: {repo_id}", "RepoNotFound")
        return GitRepo(path)

    def create_repo(self, repo_id: str, files: dict[str, bytes] | None = None) -> str:
        """A new dataset repo whose first commit holds the Hub's .gitattributes and `files`
        (stored as the Hub would: LFS where its rules say so)."""
        path = self.root / f"{repo_id}.git"
        if path.exists():
            raise HubError(409, "You already created this dataset repo")
        path.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "init", "--bare", "-q", "-b", "main", str(path)], check=True)
        repo = GitRepo(path)
        empty = repo.git("mktree", input=b"").decode().strip()
        root = repo.git("commit-tree", empty, "-m", "initial commit").decode().strip()
        repo.git("update-ref", "refs/heads/main", root)
        first = repo.commit(root, {".gitattributes": HUB_GITATTRIBUTES.encode()}, [], "initial commit")
        if not files:
            return first
        return repo.commit(first, {path: self._stored(repo, first, path, data) for path, data in files.items()}, [],
                           "Initial files")

    def _stored(self, repo: GitRepo, sha: str, path: str, data: bytes) -> bytes:
        """What git keeps for `data` at `path`: the bytes, or an LFS pointer to them."""
        if not repo.must_be_lfs(sha, path, len(data), data[:512]):
            return data
        digest = hashlib.sha256(data).hexdigest()
        (self.lfs_objects / digest).write_bytes(data)
        return lfs_pointer(digest, len(data))

    def content(self, stored: bytes) -> bytes:
        """A file's content from what git keeps (an LFS pointer resolved)."""
        pointer = parsed_pointer(stored)
        return (self.lfs_objects / pointer[0]).read_bytes() if pointer else stored

    def add_account(self, name: str, orgs=()) -> None:
        self.accounts[name] = list(orgs)

    def issue_token(self, account: str) -> str:
        """An OAuth access token of `account`, as a sign-in would give (for tests of whoami)."""
        token = f"hf_oauth_{secrets.token_hex(12)}"
        with self._lock:
            self._access_tokens[token] = account
        return token

    def head(self, repo_id: str) -> str:
        return self.repo(repo_id).resolve("main")

    def read(self, repo_id: str, path: str, rev: str = "main") -> bytes:
        repo = self.repo(repo_id)
        return self.content(repo.blob(repo.resolve(rev), path)[1])

    def files(self, repo_id: str, rev: str = "main") -> list[str]:
        repo = self.repo(repo_id)
        return sorted(e["path"] for e in repo.entries(repo.resolve(rev)) if e["type"] == "file")

    # --- the server ------------------------------------------------------------------------

    def start(self, port: int = 0) -> "FakeHub":
        """Serve on `port` of 127.0.0.1 (0: one the OS picks; a bench pins its own)."""
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):
                hub._dispatch(self, "GET")

            def do_HEAD(self):
                hub._dispatch(self, "HEAD")

            def do_POST(self):
                hub._dispatch(self, "POST")

            def do_PUT(self):
                hub._dispatch(self, "PUT")

        self._server = QuietServer(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server:
            self._server.shutdown()
            self._server.server_close()

    ROUTES = [
        ("GET", rf"/api/datasets/{REPO}(?:/revision/{REV})?", "_info"),
        ("GET", rf"/api/datasets/{REPO}/tree/{REV}(?:/(?P<path>.*))?", "_tree"),
        ("POST", rf"/api/datasets/{REPO}/paths-info/{REV}", "_paths_info"),
        ("POST", rf"/api/datasets/{REPO}/preupload/{REV}", "_preupload"),
        ("POST", COMMIT_PATH, "_commit"),
        ("POST", rf"/datasets/{REPO}\.git/info/lfs/objects/batch", "_lfs_batch"),
        ("PUT", r"/lfs-upload/(?P<oid>[0-9a-f]{64})", "_lfs_upload"),
        ("POST", r"/lfs-verify/(?P<oid>[0-9a-f]{64})", "_lfs_verify"),
        ("GET", rf"/api/datasets/{REPO}/commits/{REV}", "_commits"),
        ("GET", rf"/api/datasets/{REPO}/refs", "_refs"),
        ("POST", r"/api/repos/create", "_create_repo"),
        ("POST", rf"/api/datasets/{REPO}/branch/(?P<branch>[^/]+)", "_create_branch"),
        ("POST", r"/api/validate-yaml", "_validate_yaml"),
        ("GET", rf"/datasets/{REPO}/resolve/{REV}/(?P<path>.+)", "_resolve"),
        ("HEAD", rf"/datasets/{REPO}/resolve/{REV}/(?P<path>.+)", "_resolve"),
        ("GET", r"/\.well-known/openid-configuration", "_openid_configuration"),
        ("GET", r"/oauth/authorize", "_authorize"),
        ("POST", r"/oauth/token", "_token"),
        ("GET", r"/oauth/userinfo", "_userinfo"),
        ("GET", r"/oauth/jwks", "_jwks"),
        ("GET", r"/api/whoami-v2", "_whoami"),
    ]

    def _dispatch(self, request: BaseHTTPRequestHandler, method: str) -> None:
        url = urlparse(request.path)
        if self.unreachable_from_commit and method == "POST" and re.fullmatch(COMMIT_PATH, url.path):
            self.unreachable_from_commit -= 1
            self.unreachable = not self.unreachable_from_commit
        if self.unreachable:
            request.close_connection = True
            return
        body = request.rfile.read(int(request.headers.get("Content-Length") or 0)) if method in ("POST", "PUT") else b""
        if self.latency:
            time.sleep(self.latency)
        handler = "no route"
        try:
            for route_method, pattern, handler in self.ROUTES:
                match = re.fullmatch(pattern, url.path)
                if route_method == method and match:
                    args = {k: unquote(v) for k, v in match.groupdict().items() if v is not None}
                    status, headers, payload = getattr(self, handler)(request, body, parse_qs(url.query), **args)
                    break
            else:
                handler = "no route"
                raise HubError(404, f"no route {method} {url.path}")
        except Exception as e:  # noqa: BLE001 - every failure becomes an HTTP error, as on the Hub
            if not isinstance(e, HubError):
                e = HubError(500, f"{type(e).__name__}: {e}")
            status, payload = e.status, json.dumps({"error": e.message}).encode()
            headers = {"Content-Type": "application/json", **({"X-Error-Code": e.code} if e.code else {}),
                       "X-Error-Message": e.message}
        with self._lock:
            self.requests += 1
            self.requests_by_route[handler] = self.requests_by_route.get(handler, 0) + 1
            self.bytes_sent += len(payload) if method != "HEAD" else 0
        request.send_response(status)
        for key, value in headers.items():
            request.send_header(key, value)
        request.send_header("Content-Length", str(len(payload)))
        request.end_headers()
        if method != "HEAD":
            request.wfile.write(payload)

    @staticmethod
    def _json(obj, status: int = 200):
        return status, {"Content-Type": "application/json"}, json.dumps(obj).encode()

    def _info(self, request, body, query, repo, rev="main"):
        git = self.repo(repo)
        sha = git.resolve(rev)
        siblings = [{"rfilename": e["path"]} for e in git.entries(sha) if e["type"] == "file"]
        return self._json({"_id": repo, "id": repo, "author": repo.split("/")[0], "sha": sha, "private": False,
                           "disabled": False, "gated": False, "downloads": 0, "likes": 0, "tags": [],
                           "lastModified": "2026-01-01T00:00:00.000Z", "siblings": siblings})

    def _tree(self, request, body, query, repo, rev, path=""):
        with self._lock:
            if self.fail_next_tree_listings:
                self.fail_next_tree_listings -= 1
                raise HubError(400, "Bad Request (injected)")
        git = self.repo(repo)
        recursive = query.get("recursive", ["false"])[0].lower() in ("1", "true")
        return self._json(git.entries(git.resolve(rev), path.strip("/"), recursive))

    def _paths_info(self, request, body, query, repo, rev):
        git = self.repo(repo)
        sha = git.resolve(rev)
        if request.headers.get("Content-Type", "").startswith("application/json"):
            paths = json.loads(body).get("paths", [])
        else:
            paths = parse_qs(body.decode()).get("paths", [])
        found = []
        for path in paths:
            parent, _, _ = path.strip("/").rpartition("/")
            try:
                found += [e for e in git.entries(sha, parent, recursive=False) if e["path"] == path.strip("/")]
            except HubError:
                pass
        return self._json(found)

    def _check_token(self, request):
        if request.headers.get("Authorization") != f"Bearer {self.token}":
            raise HubError(401, "Invalid credentials in Authorization header")

    def _preupload(self, request, body, query, repo, rev):
        self._check_token(request)
        git = self.repo(repo)
        sha = git.resolve(rev)
        files = []
        for f in json.loads(body)["files"]:
            try:
                oid = git.blob(sha, f["path"])[0]
            except HubError:
                oid = None
            lfs = git.must_be_lfs(sha, f["path"], int(f.get("size", 0)), base64.b64decode(f.get("sample", "")))
            files.append({"path": f["path"], "uploadMode": "lfs" if lfs else "regular", "shouldIgnore": False,
                          "oid": oid})
        return self._json({"files": files, "commitOid": sha})

    def _validate_yaml(self, request, body, query):
        return self._json({"errors": [], "warnings": []})

    def _commit(self, request, body, query, repo, rev):
        self._check_token(request)
        git = self.repo(repo)
        lines = [json.loads(line) for line in body.decode().splitlines() if line.strip()]
        header = next(item["value"] for item in lines if item["key"] == "header")
        adds, deletes = {}, []
        for item in lines:
            if item["key"] == "file":
                adds[item["value"]["path"]] = base64.b64decode(item["value"]["content"])
            elif item["key"] == "lfsFile":
                oid = item["value"]["oid"]
                if not (self.lfs_objects / oid).exists():
                    raise HubError(400, f"LFS file {item['value']['path']}: object {oid} was never uploaded")
                adds[item["value"]["path"]] = lfs_pointer(oid, (self.lfs_objects / oid).stat().st_size)
            elif item["key"] in ("deletedFile", "deletedFolder"):
                deletes.append(item["value"]["path"])
            elif item["key"] != "header":
                raise HubError(400, f"unsupported commit operation {item['key']}")
        with self._lock:
            if self.fail_next_commits:
                self.fail_next_commits -= 1
                raise HubError(500, "Internal Error (injected)")
            head = git.resolve(rev)
            parent = header.get("parentCommit")
            if parent and parent != head:
                self.rejected += 1
                raise HubError(412, "A commit has happened since. Please refresh and try again.")
            binary = [path for path, data in adds.items()
                      if not parsed_pointer(data) and git.must_be_lfs(head, path, len(data), data[:512])]
            if binary:
                raise HubError(400, f"Your push was rejected because it contains binary files ({', '.join(binary)}): "
                                    f"store them with LFS")
            new = git.commit(head, adds, deletes, header.get("summary") or "commit", branch=rev)
            self.commits += 1
            if self.fail_after_next_commits:
                self.fail_after_next_commits -= 1
                raise HubError(500, "Internal Error (injected after the commit landed)")
        return self._json({"success": True, "commitOid": new, "commitUrl": f"{self.url}/datasets/{repo}/commit/{new}",
                           "hookOutput": ""})

    def _resolve(self, request, body, query, repo, rev, path):
        git = self.repo(repo)
        sha = git.resolve(rev)
        oid, stored = git.blob(sha, path)
        content = self.content(stored)
        if request.command == "GET":
            with self._lock:
                self.downloaded.append(path)
        headers = {"X-Repo-Commit": sha, "ETag": f'"{oid}"', "Content-Type": "application/octet-stream",
                   "Accept-Ranges": "bytes"}
        pointer = parsed_pointer(stored)
        if pointer:  # as the Hub answers for an LFS file: its content's sha256 and size
            headers.update({"X-Linked-Etag": f'"{pointer[0]}"', "X-Linked-Size": str(pointer[1])})
        ranged = re.fullmatch(r"bytes=(\d+)-(\d*)", request.headers.get("Range", ""))
        if ranged:
            start = int(ranged[1])
            end = int(ranged[2]) if ranged[2] else len(content) - 1
            headers["Content-Range"] = f"bytes {start}-{min(end, len(content) - 1)}/{len(content)}"
            return 206, headers, content[start:end + 1]
        return 200, headers, content  # for HEAD only Content-Length is sent

    def _lfs_batch(self, request, body, query, repo):
        self._check_token(request)
        self.repo(repo)
        asked = json.loads(body)
        if asked.get("operation") != "upload" or "basic" not in asked.get("transfers", ["basic"]):
            raise HubError(400, "only basic LFS uploads are served here")
        objects = []
        for obj in asked["objects"]:
            answer = {"oid": obj["oid"], "size": obj["size"]}
            if not (self.lfs_objects / obj["oid"]).exists():  # a known object needs no upload, as on the Hub
                answer["actions"] = {"upload": {"href": f"{self.url}/lfs-upload/{obj['oid']}"},
                                     "verify": {"href": f"{self.url}/lfs-verify/{obj['oid']}"}}
            objects.append(answer)
        return self._json({"transfer": "basic", "objects": objects, "hash_algo": "sha256"})

    def _lfs_upload(self, request, body, query, oid):
        if hashlib.sha256(body).hexdigest() != oid:
            raise HubError(400, f"the uploaded bytes do not hash to {oid}")
        (self.lfs_objects / oid).write_bytes(body)
        return 200, {}, b""

    def _lfs_verify(self, request, body, query, oid):
        self._check_token(request)
        asked = json.loads(body)
        stored = self.lfs_objects / oid
        if not stored.exists() or stored.stat().st_size != asked.get("size"):
            raise HubError(404, f"LFS object {oid} not found")
        return self._json({"success": True})

    def _commits(self, request, body, query, repo, rev):
        git = self.repo(repo)
        log = git.git("log", "--format=%H%x00%s%x00%B%x00%at%x1e", git.resolve(rev)).decode()
        commits = []
        for record in filter(str.strip, log.split("\x1e")):
            sha, title, message, seconds = record.strip("\n").split("\0")
            date = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(int(seconds)))  # as the Hub writes dates
            commits.append({"id": sha, "title": title, "message": message.strip(), "date": date,
                            "authors": [{"user": "hub"}]})
        return self._json(commits)

    def _refs(self, request, body, query, repo):
        git = self.repo(repo)
        heads = git.git("for-each-ref", "--format=%(refname) %(objectname)", "refs/heads").decode().split()
        branches = [{"name": ref.removeprefix("refs/heads/"), "ref": ref, "targetCommit": sha}
                    for ref, sha in zip(heads[::2], heads[1::2])]
        return self._json({"branches": branches, "converts": [], "tags": [], "pullRequests": []})

    def _create_repo(self, request, body, query):
        self._check_token(request)
        asked = json.loads(body)
        if asked.get("type") != "dataset":
            raise HubError(400, "only dataset repos are served here")
        repo_id = f"{asked.get('organization') or self.token_account}/{asked['name']}"
        self.create_repo(repo_id)
        return self._json({"url": f"{self.url}/datasets/{repo_id}", "name": repo_id})

    def _create_branch(self, request, body, query, repo, branch):
        self._check_token(request)
        git = self.repo(repo)
        start = git.resolve((json.loads(body) if body else {}).get("startingPoint") or "main")
        try:
            git.git("update-ref", f"refs/heads/{branch}", start, "")  # only if it does not exist yet
        except subprocess.CalledProcessError:
            raise HubError(409, f"Reference already exists: refs/heads/{branch}")
        return self._json({})

    # --- the OpenID provider ---------------------------------------------------------------

    def _openid_configuration(self, request, body, query):
        return self._json({"issuer": self.url, "authorization_endpoint": f"{self.url}/oauth/authorize",
                           "token_endpoint": f"{self.url}/oauth/token", "userinfo_endpoint": f"{self.url}/oauth/userinfo",
                           "jwks_uri": f"{self.url}/oauth/jwks", "response_types_supported": ["code"],
                           "subject_types_supported": ["public"], "id_token_signing_alg_values_supported": ["RS256"],
                           "scopes_supported": ["openid", "profile"],
                           "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"]})

    def _authorize(self, request, body, query):
        """Approves at once, for the account the browser is signed in to the hub as."""
        asked = {key: values[0] for key, values in query.items()}
        if asked.get("client_id") != self.client_id or asked.get("response_type") != "code":
            raise HubError(400, "unknown OAuth app or response type")
        cookie = SimpleCookie(request.headers.get("Cookie", ""))
        account = cookie["fake_hub_account"].value if "fake_hub_account" in cookie else None
        if account not in self.accounts:
            raise HubError(401, "not signed in to the hub (set the fake_hub_account cookie)")
        code = secrets.token_urlsafe(16)
        with self._lock:
            self._codes[code] = {"account": account, "nonce": asked.get("nonce"), "scope": asked.get("scope", ""),
                                 "redirect_uri": asked.get("redirect_uri")}
        target = asked["redirect_uri"] + ("&" if "?" in asked["redirect_uri"] else "?") + urlencode(
            {"code": code, "state": asked.get("state", "")})
        return 302, {"Location": target}, b""

    def _client_authenticated(self, request, form: dict) -> bool:
        given = (form.get("client_id"), form.get("client_secret"))
        header = request.headers.get("Authorization", "")
        if header.startswith("Basic "):
            given = tuple(unquote(part) for part in base64.b64decode(header[6:]).decode().split(":", 1))
        return given == (self.client_id, self.client_secret)

    def _token(self, request, body, query):
        form = {key: values[0] for key, values in parse_qs(body.decode()).items()}
        if not self._client_authenticated(request, form):
            raise HubError(401, "invalid_client")
        with self._lock:
            grant = self._codes.pop(form.get("code", ""), None)
        if grant is None or form.get("grant_type") != "authorization_code" or \
                form.get("redirect_uri") != grant["redirect_uri"]:
            raise HubError(400, "invalid_grant")
        access_token = self.issue_token(grant["account"])
        now = int(time.time())
        claims = {"iss": self.url, "aud": self.client_id, "iat": now, "exp": now + 3600, "auth_time": now,
                  **({"nonce": grant["nonce"]} if grant["nonce"] else {}), **self._profile(grant["account"])}
        with self._lock:
            self.sign_ins += 1
        return self._json({"access_token": access_token, "token_type": "bearer", "expires_in": 28800,
                           "scope": grant["scope"], "id_token": jwt.encode({"alg": "RS256", "kid": "fake-hub"},
                                                                            claims, self._signing_key)})

    def _profile(self, account: str) -> dict:
        return {"sub": f"user-{account}", "name": account.title(), "preferred_username": account,
                "profile": f"{self.url}/{account}", "picture": f"{self.url}/avatars/{account}.png"}

    def _account_of(self, request) -> str:
        header = request.headers.get("Authorization", "")
        account = self._access_tokens.get(header.removeprefix("Bearer "))
        if account is None:
            raise HubError(401, "Invalid credentials in Authorization header")
        return account

    def _userinfo(self, request, body, query):
        return self._json(self._profile(self._account_of(request)))

    def _jwks(self, request, body, query):
        return self._json(KeySet([self._signing_key]).as_dict(private=False))

    def _whoami(self, request, body, query):
        if request.headers.get("Authorization") == f"Bearer {self.token}":  # the API token: a write token
            return self._json({"type": "user", "id": f"user-{self.token_account}", "name": self.token_account,
                               "fullname": self.token_account, "orgs": [],
                               "auth": {"type": "access_token",
                                        "accessToken": {"displayName": "leaderboard", "role": "write"}}})
        account = self._account_of(request)
        return self._json({"type": "user", "id": f"user-{account}", "name": account, "fullname": account.title(),
                           "orgs": [{"type": "org", "name": org, "fullname": org, "roleInOrg": "write"}
                                    for org in self.accounts[account]],
                           "auth": {"type": "oauth", "accessToken": {"role": "read"}}})
