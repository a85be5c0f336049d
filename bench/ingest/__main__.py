"""Ingestion throughput: the full pipeline in a real Celery worker vs plain embedding of the same chunk texts.

    .venv/bin/python -m bench.ingest /work/shared/corpora/scifact-en --limit 600 --ocr-pages 20

Each corpus record becomes a Markdown file (title heading + text) in a temporary folder outside
the project; a temporary workspace holds the documents and is deleted at the end. The OCR figures
come from the same records typeset, rasterised and stored as scans without a text layer
(bench/ingest/ocr.py): Tesseract alone in this process, then the worker's full pipeline.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

from bench.ingest.baseline import embed_in_processes
from bench.ingest.cpu import postgres_server_pid, tree_cpu_seconds
from bench.ingest.ocr import ocr_print, ocr_run, scanned_pdfs_write
from config.launcher.workers import WORKER_FLAGS


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", type=Path, help="A BEIR folder holding corpus.jsonl.")
    parser.add_argument("--limit", type=int, default=500, help="Records to ingest (default 500).")
    parser.add_argument(
        "--batch-size", type=int, default=None, help="Embedding batch size (default: settings)."
    )
    parser.add_argument(
        "--concurrency", type=int, default=os.cpu_count() or 1, help="Worker processes."
    )
    parser.add_argument(
        "--threads", type=int, default=None, help="Torch threads per worker process."
    )
    parser.add_argument(
        "--ocr-pages", type=int, default=20, help="Scanned pages for the OCR figures (0: none)."
    )
    args = parser.parse_args()
    threads = args.threads or max(1, (os.cpu_count() or 1) // args.concurrency)
    if args.batch_size:
        os.environ["PARLEY_EMBEDDING_BATCH_SIZE"] = str(args.batch_size)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    folder = Path(tempfile.mkdtemp(prefix="parley-bench-ingest-"))
    try:
        files = _write_corpus(args.corpus / "corpus.jsonl", folder, args.limit)
        texts = [path.read_text() for path in files]
        scans = scanned_pdfs_write(texts, folder, pages=args.ocr_pages, pages_per_file=2)
        _run(
            files,
            scans=scans if args.ocr_pages else [],
            concurrency=args.concurrency,
            threads=threads,
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _write_corpus(corpus: Path, folder: Path, limit: int) -> list[Path]:
    files = []
    with corpus.open() as handle:
        for line in handle:
            if len(files) >= limit:
                break
            record = json.loads(line)
            path = folder / f"{len(files):06d}.md"
            title = (record.get("title") or "").strip()
            path.write_text(f"# {title}\n\n{record['text']}\n" if title else f"{record['text']}\n")
            files.append(path)
    return files


def _run(files: list[Path], *, scans: list[Path], concurrency: int, threads: int) -> None:
    from django.conf import settings

    from config.celery import app as celery_app
    from core.models import Workspace
    from rag.services import document_create, documents_create_from_paths

    queue = f"bench-ingest-{uuid.uuid4().hex[:8]}"
    celery_app.conf.task_default_queue = queue
    workspace = Workspace.objects.create(name=f"bench {queue}", slug=queue)
    worker = _worker_start(queue, concurrency=concurrency, threads=threads)
    sampler = _RssSampler(worker.pid)
    try:
        from django.core.files.base import ContentFile

        warmups = [
            document_create(
                workspace=workspace,
                file=ContentFile(b"# Warm up\n\nLoad the model.", name=f"w{n}.md"),
            )
            for n in range(concurrency * 2)
        ]
        _wait(
            [warmup.pk for warmup in warmups], timeout=300
        )  # every pool process has loaded the model
        texts = _chunk_texts(files)
        # The machine is shared: plain embedding runs before and after the pipeline, and the ratio uses their mean.
        before_seconds, before_cpu = embed_in_processes(
            texts, processes=concurrency, threads=threads
        )
        postgres_pid = postgres_server_pid()
        cpu_before = _cpu_now(worker.pid, postgres_pid)
        sampler.start()
        started = time.perf_counter()
        documents = documents_create_from_paths(workspace=workspace, paths=files)
        _wait([d.pk for d in documents], timeout=3600)
        pipeline_seconds = time.perf_counter() - started
        sampler.stop()
        cpu = [
            now - then
            for now, then in zip(_cpu_now(worker.pid, postgres_pid), cpu_before, strict=True)
        ]
        pipeline = _summary([d.pk for d in documents])
        if len(texts) != pipeline["chunks"]:
            print(
                f"warning: baseline has {len(texts)} chunk texts, the pipeline stored {pipeline['chunks']}"
            )
        after_seconds, after_cpu = embed_in_processes(texts, processes=concurrency, threads=threads)
        baseline_seconds = _embed_plainly(texts)
        ocr = ocr_run(workspace=workspace, scans=scans, wait=_wait) if scans else None
    finally:
        _worker_stop(worker)
        from rag.services import document_delete

        for document_id in workspace.documents.values_list("pk", flat=True):
            document_delete(document_id=document_id)
        workspace.delete()
    chunks = pipeline["chunks"]
    pipeline_rate = chunks / pipeline_seconds
    baseline_rate = len(texts) / baseline_seconds
    print(
        f"corpus files          {len(files)} ({pipeline['ready']} ready, {pipeline['failed']} failed)"
    )
    sizes = f"{settings.PARLEY_CHUNK_TOKENS} / {settings.PARLEY_CHUNK_OVERLAP_TOKENS} tokens"
    print(
        f"chunk size / overlap  {sizes}, batch {settings.PARLEY_EMBEDDING_BATCH_SIZE}, cores {os.cpu_count()}"
    )
    print(
        f"worker                {concurrency} pool process(es) x {threads} torch thread(s); baseline: 1 process,"
        f" torch default threads ({_torch_threads()})"
    )
    print(f"mean tokens per chunk {pipeline['mean_tokens']:.0f}")
    print(
        f"pipeline (worker)     {chunks} chunks in {pipeline_seconds:.1f} s = {pipeline_rate:.1f} chunks/s"
    )
    print(
        f"plain, 1 process      {len(texts)} chunks in {baseline_seconds:.1f} s = {baseline_rate:.1f} chunks/s"
    )
    before_rate, after_rate = len(texts) / before_seconds, len(texts) / after_seconds
    print(
        f"plain, {concurrency} proc x {threads} thr  {before_rate:.1f} chunks/s before the pipeline,"
        f" {after_rate:.1f} after"
    )
    reference = max(baseline_rate, (before_rate + after_rate) / 2)
    print(
        f"ratio                 {pipeline_rate / reference:.2f} of plain embedding (target >= 0.85)"
    )
    plain_cpu = (before_cpu + after_cpu) / 2
    print(
        f"CPU seconds           pipeline {sum(cpu):.1f} (worker {cpu[0]:.1f}, PostgreSQL {cpu[1]:.1f}, uploads"
        f" {cpu[2]:.1f}); plain, {concurrency} proc x {threads} thr {plain_cpu:.1f}"
    )
    print(
        f"CPU ratio             {plain_cpu / sum(cpu):.2f} (plain CPU per chunk / pipeline CPU per chunk; little"
        " affected by other load)"
    )
    print(
        f"peak worker RSS       {sampler.peak_child / 2**20:.0f} MiB per pool process,"
        f" {sampler.peak_total / 2**20:.0f} MiB worker total"
    )
    if ocr is not None:
        ocr_print(ocr, files=len(scans), dpi=settings.PARLEY_OCR_DPI)


def _worker_start(queue: str, *, concurrency: int, threads: int) -> subprocess.Popen:
    from config.celery import app as celery_app

    hostname = f"{queue}@localhost"
    argv = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        "--pool=prefork",
        f"--concurrency={concurrency}",
        "-Q",
        queue,
        "-n",
        hostname,
        *WORKER_FLAGS,
        "--loglevel=WARNING",
    ]
    env = {
        **os.environ,
        "CELERY_TASK_DEFAULT_QUEUE": queue,
        "PARLEY_EMBEDDING_THREADS": str(threads),
    }
    worker = subprocess.Popen(argv, env=env, start_new_session=True)
    deadline = time.monotonic() + 60
    while not celery_app.control.ping(destination=[hostname], timeout=0.5):
        if time.monotonic() > deadline or worker.poll() is not None:
            raise SystemExit("the bench worker did not start")
    return worker


def _cpu_now(worker_pid: int, postgres_pid: int | None) -> list[float]:
    """CPU seconds so far of the worker tree, the PostgreSQL server and this process (which uploads the files)."""
    postgres = tree_cpu_seconds(postgres_pid) if postgres_pid else 0.0
    return [tree_cpu_seconds(worker_pid), postgres, time.process_time()]


def _worker_stop(worker: subprocess.Popen) -> None:
    os.killpg(worker.pid, signal.SIGTERM)
    try:
        worker.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(worker.pid, signal.SIGKILL)


def _wait(ids: list, *, timeout: float) -> None:
    from rag.models import Document

    deadline = time.monotonic() + timeout
    while Document.objects.filter(pk__in=ids, status__in=["pending", "processing"]).exists():
        if time.monotonic() > deadline:
            raise SystemExit("timed out waiting for the worker")
        time.sleep(0.2)


def _summary(ids: list) -> dict:
    from django.db.models import Avg, Count, Q

    from rag.models import Chunk, Document

    documents = Document.objects.filter(pk__in=ids).aggregate(
        ready=Count("pk", filter=Q(status="ready")), failed=Count("pk", filter=Q(status="failed"))
    )
    chunks = Chunk.objects.filter(document_id__in=ids).aggregate(
        chunks=Count("pk"), mean_tokens=Avg("token_count")
    )
    return {**documents, **chunks}


def _chunk_texts(files: list[Path]) -> list[str]:
    """The exact texts the pipeline embedded, rebuilt by the same parser and chunker."""
    from django.conf import settings

    from rag.chunking import chunks_build
    from rag.parsing import document_parse

    texts = []
    for path in files:
        parsed = document_parse(data=path.read_bytes(), filename=path.name)
        drafts = chunks_build(
            blocks=parsed.blocks,
            title=path.stem,
            size=settings.PARLEY_CHUNK_TOKENS,
            overlap=settings.PARLEY_CHUNK_OVERLAP_TOKENS,
        )
        texts.extend(draft.embed_text for draft in drafts)
    return texts


def _embed_plainly(texts: list[str]) -> float:
    from textmodels.embeddings import embedding_provider_get, multilingual_model_default

    # Both models, as ingestion embeds every chunk with the workspace model and the multilingual one.
    providers = [embedding_provider_get()]
    if multilingual_model_default():
        providers.append(embedding_provider_get(model_id=multilingual_model_default()))
    for provider in providers:
        provider.embed_texts(["warm up"])
    started = time.perf_counter()
    for provider in providers:
        provider.embed_texts(texts)
    return time.perf_counter() - started


def _torch_threads() -> int:
    import torch

    return torch.get_num_threads()


class _RssSampler:
    def __init__(self, pid: int) -> None:
        import psutil

        self.process = psutil.Process(pid)
        self.peak_child = 0
        self.peak_total = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _loop(self) -> None:
        import psutil

        while not self._stop.is_set():
            try:
                children = [
                    child.memory_info().rss for child in self.process.children(recursive=True)
                ]
                self.peak_child = max([self.peak_child, *children])
                self.peak_total = max(
                    self.peak_total, self.process.memory_info().rss + sum(children)
                )
            except psutil.Error:
                pass
            time.sleep(0.2)


if __name__ == "__main__":
    main()
