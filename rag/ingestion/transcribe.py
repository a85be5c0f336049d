"""Audio and video through the workspace's transcription endpoint: ffmpeg extracts the sound, segments become cues.

The segments are chunked as subtitle cues are (start and end times, no page), so a transcribed
webinar and its VTT file give the same kind of chunks.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path, PurePath

from django.conf import settings

from core.llm.errors import LLMError
from core.llm.gateway import transcription_create
from core.llm.types import MediaEndpoint
from rag.errors import IngestError, TransientIngestError
from rag.parsing.blocks import Block, ParsedDocument

VIDEO_EXTENSIONS = (".mp4", ".webm")


def audio_transcribe(*, data: bytes, filename: str, model: str) -> ParsedDocument:
    """The file's speech as timed blocks; IngestError when it has none or cannot be read."""
    if not model:
        raise IngestError(
            "transcription_not_configured",
            "Audio and video need a transcription model: set one for the workspace (Workspace media"
            " models, with PARLEY_TRANSCRIPTION_OPENAI_BASE_URL), or upload a VTT/SRT file instead.",
        )
    audio = audio_extract(data=data, filename=filename)
    endpoint = MediaEndpoint.transcription(model=model)
    try:
        result = transcription_create(endpoint=endpoint, audio=audio, filename="audio.mp3")
    except LLMError as exc:
        if exc.transient:
            raise TransientIngestError(f"transcription endpoint unavailable: {exc}") from exc
        raise IngestError(
            "transcription_failed", f"The transcription endpoint refused the file: {exc.message}"
        ) from exc
    blocks = [
        Block(text=" ".join(segment.text.split()), start_time=segment.start, end_time=segment.end)
        for segment in result.segments
        if segment.text.strip()
    ]
    if not blocks:
        raise IngestError("no_text", "The transcription found no speech in this file.")
    modality = "video" if PurePath(filename).suffix.lower() in VIDEO_EXTENSIONS else "audio"
    return ParsedDocument(blocks=blocks, modality=modality)


def audio_extract(*, data: bytes, filename: str) -> bytes:
    """The sound track as 32 kbit/s mono MP3: an hour stays far below endpoints' 25 MB cap."""
    suffix = PurePath(filename).suffix.lower()
    with tempfile.TemporaryDirectory(prefix="parley-audio-") as folder:
        source, target = Path(folder) / f"in{suffix}", Path(folder) / "out.mp3"
        source.write_bytes(data)
        command = [
            "ffmpeg",
            "-nostdin",
            "-hide_banner",
            "-loglevel",
            "error",
            "-i",
            str(source),
            "-vn",
            "-ac",
            "1",
            "-ar",
            "16000",
            "-b:a",
            "32k",
            str(target),
        ]
        try:
            done = subprocess.run(
                command,
                capture_output=True,
                timeout=settings.PARLEY_TRANSCRIPTION_TIMEOUT,
                check=False,
            )
        except FileNotFoundError as exc:
            raise IngestError(
                "ffmpeg_missing",
                "Audio and video need ffmpeg: apt-get install ffmpeg (./parley run installs it as root).",
            ) from exc
        except subprocess.TimeoutExpired as exc:
            raise IngestError("audio_timeout", "Extracting the audio took too long.") from exc
        if done.returncode != 0 or not target.exists() or not target.stat().st_size:
            reason = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [
                "no audio"
            ]
            raise IngestError(
                "corrupt_media", f"The file's audio cannot be read ({reason[0][:200]})."
            )
        return target.read_bytes()
