"""Figures and recordings against the scripted OpenAI-compatible server: vision descriptions, their failure,
OCR as the fallback, and transcription of speech made by espeak-ng (ffmpeg extracting the audio)."""

from __future__ import annotations

import io
import subprocess
import tempfile
from pathlib import Path

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connection
from django.test import override_settings
from docx import Document as DocxDocument
from PIL import Image

from rag.ingestion import document_ingest
from rag.models import Chunk, Document, WorkspaceMediaModels
from rag.services import document_create
from tests.rag import media_files
from tests.support.llm_server import Reply, ScriptedLLMServer

BARS = {"Eco": 120, "Tour": 90, "Sport": 60}
CHART_TITLE = "Range by assist mode"
TEXT = ["Range depends on the assist mode you choose for the ride."]
DESCRIPTION = "A bar chart of range by assist mode: Eco 120 km, Tour 90 km and Sport 60 km."
SENTENCE = "Charge the battery for four hours before the first ride. Store it half charged."


def _ingest(document: Document) -> Document:
    document_ingest(document_id=str(document.pk), claim_id="claim-media")
    document.refresh_from_db()
    return document


@pytest.fixture
def vision(workspace, llm: ScriptedLLMServer, settings) -> ScriptedLLMServer:
    settings.PARLEY_VISION_OPENAI_BASE_URL = llm.base_url
    settings.LLM_MAX_RETRIES = 0
    WorkspaceMediaModels.objects.create(workspace=workspace, vision_model="scripted-vision")
    return llm


@pytest.fixture
def transcription(workspace, llm: ScriptedLLMServer, settings) -> ScriptedLLMServer:
    settings.PARLEY_TRANSCRIPTION_OPENAI_BASE_URL = llm.base_url
    WorkspaceMediaModels.objects.create(workspace=workspace, transcription_model="whisper-1")
    return llm


def _chart_pdf() -> bytes:
    return media_files.chart_pdf_bytes(title=CHART_TITLE, bars=BARS, lines=TEXT)


def _figure_chunk(document: Document) -> Chunk:
    return Chunk.objects.get(document=document, metadata__modality="image")


@pytest.mark.django_db
def test_a_pdf_figure_is_described_by_the_vision_model_and_becomes_a_located_chunk(
    make_document, vision
) -> None:
    vision.enqueue(Reply(content=DESCRIPTION))
    document = _ingest(make_document("range.pdf", _chart_pdf()))
    assert document.status == "ready", document.error
    chunk = _figure_chunk(document)
    assert DESCRIPTION in chunk.text and chunk.page_number == 1
    x0, top, x1, bottom = chunk.bbox[0]["bbox"]
    assert [round(v) for v in (x0, top, x1, bottom)] == [round(v) for v in media_files.CHART_BOX]
    image = chunk.metadata["image"]
    assert image["description_source"] == "vision" and (image["width"], image["height"]) == (
        800,
        500,
    )
    assert default_storage.exists(image["path"])
    # The vision request carried the figure itself, as a PNG data URL.
    (request,) = vision.chat_requests()
    (sent,) = request.images
    assert Image.open(io.BytesIO(sent)).size == (800, 500)
    assert request.body["model"] == "scripted-vision"
    assert document.metadata["figures"][0]["description_source"] == "vision"
    # Retrievable like text: the description is in the chunk's full-text vector.
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM rag_chunk WHERE id = %s"
            " AND search_vector @@ plainto_tsquery('english', 'sport range chart')",
            [chunk.pk],
        )
        assert cursor.fetchone()[0] == 1


@pytest.mark.django_db
def test_a_failing_vision_endpoint_leaves_the_document_ready_with_the_failure_per_figure(
    make_document, vision
) -> None:
    vision.enqueue(Reply.error(400, "this model does not take images"))
    document = _ingest(make_document("range.pdf", _chart_pdf()))
    assert document.status == "ready", document.error
    chunk = _figure_chunk(document)
    # The OCR text of the chart stands in for the description.
    assert "assist" in chunk.text.lower() and "sport" in chunk.text.lower()
    assert chunk.metadata["image"]["description_source"] == "ocr"
    assert "does not take images" in chunk.metadata["image"]["vision_error"]
    (report,) = document.metadata["figures"]
    assert (
        report["vision_error"].startswith("llm_bad_request")
        or "400" in report["vision_error"]
        or ("does not take images" in report["vision_error"])
    )


@pytest.mark.django_db
def test_without_a_vision_model_figures_get_their_ocr_text(make_document) -> None:
    document = _ingest(make_document("range.pdf", _chart_pdf()))
    chunk = _figure_chunk(document)
    assert chunk.metadata["image"]["description_source"] == "ocr"
    assert "eco" in chunk.text.lower() and chunk.text.startswith("Figure 1 (page 1):")
    text = Chunk.objects.exclude(pk=chunk.pk).get(document=document)
    assert text.metadata["modality"] == "text" and "image" not in text.metadata


@pytest.mark.django_db
@override_settings(PARLEY_FIGURE_MIN_SIDE=1000)
def test_images_under_the_smallest_size_are_not_figures(make_document) -> None:
    document = _ingest(make_document("range.pdf", _chart_pdf()))
    assert not Chunk.objects.filter(document=document, metadata__modality="image").exists()
    assert document.metadata["figures"] == []


@pytest.mark.django_db
def test_a_docx_figure_is_extracted_and_described(make_document, vision) -> None:
    vision.enqueue(Reply(content=DESCRIPTION))
    docx = DocxDocument()
    docx.add_paragraph("Range depends on the assist mode you choose.")
    docx.add_picture(io.BytesIO(media_files.chart_png(title=CHART_TITLE, bars=BARS)))
    buffer = io.BytesIO()
    docx.save(buffer)
    document = _ingest(make_document("range.docx", buffer.getvalue()))
    chunk = _figure_chunk(document)
    assert DESCRIPTION in chunk.text and chunk.page_number is None and chunk.bbox == []
    assert default_storage.exists(chunk.metadata["image"]["path"])


def _video(wav: bytes) -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        audio, video = Path(folder) / "speech.wav", Path(folder) / "clip.mp4"
        audio.write_bytes(wav)
        subprocess.run(
            [
                "ffmpeg",
                "-nostdin",
                "-loglevel",
                "error",
                "-f",
                "lavfi",
                "-i",
                "color=c=navy:s=160x120:r=10",
                "-i",
                str(audio),
                "-shortest",
                "-c:v",
                "mpeg4",
                "-c:a",
                "aac",
                str(video),
            ],
            check=True,
            timeout=120,
        )
        return video.read_bytes()


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["webinar.wav", "webinar.mp4"])
def test_a_recording_is_transcribed_with_timestamps_and_chunked_like_subtitles(
    make_document, transcription, name
) -> None:
    wav = media_files.speech_wav_bytes(SENTENCE)
    spoken = media_files.audio_duration(wav, suffix=".wav")
    data = wav if name.endswith(".wav") else _video(wav)
    first, second = SENTENCE.split(". ")
    transcription.enqueue_transcriptions(
        Reply.transcription([(0.0, spoken / 2, first + "."), (spoken / 2, spoken, second)])
    )
    document = _ingest(make_document(name, data))
    assert document.status == "ready", document.error
    chunks = list(Chunk.objects.filter(document=document).order_by("ordinal"))
    assert chunks[0].start_time == 0.0 and chunks[-1].end_time == pytest.approx(spoken)
    assert " ".join(c.text for c in chunks).startswith("Charge the battery for four hours")
    assert all(c.page_number is None and c.bbox == [] for c in chunks)
    assert chunks[0].metadata["modality"] == ("audio" if name.endswith(".wav") else "video")
    (request,) = transcription.transcription_requests()
    assert request.body["model"] == "whisper-1"
    assert request.body["response_format"] == "verbose_json"
    assert request.body["timestamp_granularities"] == ["segment"]
    # ffmpeg's extract: an MP3 as long as the speech espeak-ng made.
    sent = request.body["file"]["data"]
    assert sent[:3] == b"ID3" or sent[:2] in (b"\xff\xfb", b"\xff\xf3", b"\xff\xf2")
    assert media_files.audio_duration(sent, suffix=".mp3") == pytest.approx(spoken, abs=0.3)


@pytest.mark.django_db
def test_a_recording_without_a_transcription_model_is_refused_with_what_to_do(
    workspace, bot
) -> None:
    wav = media_files.speech_wav_bytes("Hello.")
    document = document_create(
        workspace=workspace, file=ContentFile(wav, name="call.wav"), bots=[bot]
    )
    assert (document.status, document.error_code) == ("failed", "transcription_not_configured")
    assert "transcription model" in document.error and "VTT/SRT" in document.error
    assert not document.file


@pytest.mark.django_db
def test_a_transcription_model_removed_after_upload_fails_the_recording_clearly(
    make_document, transcription, workspace
) -> None:
    document = make_document("call.mp3", b"ID3 not really audio but stored")
    WorkspaceMediaModels.objects.filter(workspace=workspace).update(transcription_model="")
    document = _ingest(document)
    assert (document.status, document.error_code) == ("failed", "transcription_not_configured")


@pytest.mark.django_db
def test_a_damaged_recording_fails_with_ffmpegs_reason(make_document, transcription) -> None:
    document = _ingest(make_document("call.mp3", b"ID3" + b"\x00garbage" * 200))
    assert (document.status, document.error_code) == ("failed", "corrupt_media")
    assert "audio cannot be read" in document.error


@pytest.mark.django_db
def test_deleting_a_document_removes_its_figures(
    make_document, django_capture_on_commit_callbacks
) -> None:
    from rag.services import document_delete

    document = _ingest(make_document("range.pdf", _chart_pdf()))
    path = _figure_chunk(document).metadata["image"]["path"]
    assert default_storage.exists(path)
    with django_capture_on_commit_callbacks(execute=True):
        document_delete(document_id=document.pk)
    assert not default_storage.exists(path)
