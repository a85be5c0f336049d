"""A Git repository of docs-as-code Markdown (MkDocs, Docusaurus, Sphinx sources): its .md, .mdx and
.rst files under a path of one branch, each linked to its published page when a base URL is given.

The repository is fetched with dulwich (pure Python, no git binary) into a bare copy under var/, so a
re-sync transfers only new objects. A file's blob id is its validator: an unchanged blob is
NOT_MODIFIED and costs no read. The listing is the branch's whole tree, so it is complete."""

from __future__ import annotations

import hashlib
import io
import posixpath
from pathlib import Path
from typing import Any

from dulwich import porcelain
from dulwich.errors import GitProtocolError, HangupException, NotGitRepository
from dulwich.object_store import iter_tree_contents
from dulwich.objects import Blob, Commit
from dulwich.refs import Ref
from dulwich.repo import Repo

from sources.errors import SourceError, SourceUnreachable
from sources.kinds.base import (
    Discovery,
    Fetched,
    KindConfig,
    Location,
    Outcome,
    Validators,
    Via,
)

DOC_SUFFIXES = (".md", ".mdx", ".rst")
# What the existing parsers read each file as: MDX is Markdown with components, reStructuredText
# reads well enough as plain text.
_PARSED_AS = {".md": ".md", ".mdx": ".md", ".rst": ".txt"}


def published_url(*, base_url: str, relative: str) -> str:
    """A docs site's page for a source file: the extension stripped, an index (or README) read as its
    directory: `guide/intro.md` → `{base}/guide/intro`, `guide/index.md` → `{base}/guide/`."""
    stem, _ = posixpath.splitext(relative)
    folder, name = posixpath.split(stem)
    index = name.lower() in ("index", "readme")
    path = (f"{folder}/" if folder else "") if index else stem
    return f"{base_url.rstrip('/')}/{path}"


class GitKind:
    """Config: repository_url, branch (default main), path (default the root), base_url (optional)."""

    def __init__(self, *, config: KindConfig, checkouts: Path) -> None:
        self.repository_url = str(config.get("repository_url") or "").strip()
        if not self.repository_url:
            raise SourceError("A Git source needs a repository_url.")
        self.branch = str(config.get("branch") or "main").strip()
        self.path = str(config.get("path") or "").strip().strip("/")
        self.base_url = str(config.get("base_url") or "").strip()
        digest = hashlib.sha256(self.repository_url.encode()).hexdigest()[:24]
        self.checkout = checkouts / digest
        self._repo: Repo | None = None
        self._files: dict[
            str, tuple[str, bytes]
        ] = {}  # location URL -> (path in the repo, blob id)

    def discover(self) -> Discovery:
        repo, commit_id = self._fetched()
        commit = repo[commit_id]
        if not isinstance(commit, Commit):
            raise SourceUnreachable(f"{self.branch} is not a commit in {self.repository_url}.")
        prefix = f"{self.path}/" if self.path else ""
        locations = []
        self._files = {}
        for entry in iter_tree_contents(repo.object_store, commit.tree):
            if entry.path is None or entry.sha is None:
                continue
            path = entry.path.decode("utf-8", "replace")
            if not path.startswith(prefix) or not path.lower().endswith(DOC_SUFFIXES):
                continue
            url = self._url(path=path, relative=path[len(prefix) :])
            self._files[url] = (path, entry.sha)
            locations.append(Location(url=url, via=Via.FILE))
        return Discovery(locations=tuple(locations), listing_complete=True)

    def fetch(self, location: Location, validators: Validators) -> Fetched:
        found = self._files.get(location.url)
        if found is None or self._repo is None:
            return Fetched(location=location, outcome=Outcome.GONE, url=location.url, status=404)
        path, sha = found
        blob_id = sha.decode()
        if validators.etag == blob_id:
            return Fetched(
                location=location,
                outcome=Outcome.NOT_MODIFIED,
                url=location.url,
                validators=validators,
            )
        blob = self._repo[sha]
        if not isinstance(blob, Blob):
            return Fetched(location=location, outcome=Outcome.SKIPPED, reason="not_a_file")
        data = blob.as_raw_string()
        stem, suffix = posixpath.splitext(posixpath.basename(path))
        return Fetched(
            location=location,
            outcome=Outcome.FETCHED,
            url=location.url,
            content=data,
            filename=f"{stem}{_PARSED_AS.get(suffix.lower(), '.md')}",
            content_type="text/markdown",
            text=data.decode("utf-8", "replace"),
            validators=Validators(etag=blob_id),
        )

    def close(self) -> None:
        if self._repo is not None:
            self._repo.close()
            self._repo = None

    def _url(self, *, path: str, relative: str) -> str:
        if self.base_url:
            return published_url(base_url=self.base_url, relative=relative)
        return f"{self.repository_url.removesuffix('.git').rstrip('/')}/blob/{self.branch}/{path}"

    def _fetched(self) -> tuple[Repo, bytes]:
        """The bare copy, cloned or brought up to date, and the branch's commit id."""
        errors = (
            io.BytesIO()
        )  # dulwich writes its progress there; never logged (URLs may hold tokens)
        try:
            if not (self.checkout / "HEAD").exists():
                self.checkout.parent.mkdir(parents=True, exist_ok=True)
                porcelain.clone(
                    self.repository_url,
                    str(self.checkout),
                    bare=True,
                    checkout=False,
                    errstream=errors,
                )
            repo = Repo(str(self.checkout))
            result = porcelain.fetch(repo, self.repository_url, errstream=errors)
        except (NotGitRepository, GitProtocolError, HangupException, OSError, KeyError) as exc:
            raise SourceUnreachable(
                f"The repository {self.repository_url} could not be fetched: {exc}"
            ) from exc
        self._repo = repo
        commit_id = result.refs.get(Ref(f"refs/heads/{self.branch}".encode()))
        if commit_id is None:
            self.close()
            raise SourceUnreachable(
                f"The repository {self.repository_url} has no branch {self.branch!r}."
            )
        return repo, commit_id


def git_kind(*, config: KindConfig, credentials: dict[str, Any], checkouts: Path) -> GitKind:
    """The Git kind; credentials (a token) are not used yet: public and local repositories only."""
    return GitKind(config=config, checkouts=checkouts)
