"""Ingestion: uploads, chunking, embeddings, OCR, figures and audio."""

from __future__ import annotations

from config.env import env_bool, env_choice, env_float, env_int, env_str
from config.settings.workers import CELERY_TASK_TIME_LIMIT

# Uploads above this size are refused; a DOCX/zip may expand to at most 20 times it.
PARLEY_UPLOAD_MAX_BYTES = env_int("PARLEY_UPLOAD_MAX_BYTES", 25 * 1024 * 1024, minimum=1024)
# Chunk size and overlap in model tokens (all-MiniLM-L6-v2 truncates input at 256).
PARLEY_CHUNK_TOKENS = env_int("PARLEY_CHUNK_TOKENS", 200, minimum=16, maximum=8192)
PARLEY_CHUNK_OVERLAP_TOKENS = env_int("PARLEY_CHUNK_OVERLAP_TOKENS", 30, minimum=0, maximum=4096)
PARLEY_EMBEDDING_PROVIDER = env_choice("PARLEY_EMBEDDING_PROVIDER", "local", ("local", "openai"))
PARLEY_EMBEDDING_OPENAI_BASE_URL = env_str(
    "PARLEY_EMBEDDING_OPENAI_BASE_URL", "https://api.openai.com/v1"
)
PARLEY_EMBEDDING_OPENAI_API_KEY = env_str("PARLEY_EMBEDDING_OPENAI_API_KEY", "")
PARLEY_EMBEDDING_OPENAI_MODEL = env_str("PARLEY_EMBEDDING_OPENAI_MODEL", "text-embedding-3-small")
# The second, multilingual vector of every chunk (textmodels.embeddings.multilingual); "" turns it off.
PARLEY_EMBEDDING_MULTILINGUAL = env_choice(
    "PARLEY_EMBEDDING_MULTILINGUAL", "local/use-multilingual-v3", ("local/use-multilingual-v3", "")
)
PARLEY_EMBEDDING_BATCH_SIZE = env_int("PARLEY_EMBEDDING_BATCH_SIZE", 32, minimum=1, maximum=2048)
# The local model's matrix products in bfloat16 (textmodels.embeddings.precision): "auto" where the CPU does
# bfloat16 in hardware, "on", or "off" (float32 everywhere).
PARLEY_EMBEDDING_BF16 = env_choice("PARLEY_EMBEDDING_BF16", "auto", ("auto", "on", "off"))
# CPU threads of the local model per process (0: torch's default, one per core); see bench/ingest.
PARLEY_EMBEDDING_THREADS = env_int("PARLEY_EMBEDDING_THREADS", 0, minimum=0, maximum=256)
# A document whose worker has not reported progress for this long is reclaimed.
PARLEY_INGEST_STUCK_AFTER = env_int(
    "PARLEY_INGEST_STUCK_AFTER", CELERY_TASK_TIME_LIMIT + 60, minimum=30
)
# Documents one worker task claims together, so small files fill the embedding batches (1: one at a time).
PARLEY_INGEST_BATCH_DOCUMENTS = env_int("PARLEY_INGEST_BATCH_DOCUMENTS", 64, minimum=1, maximum=256)
# Deliveries of one document (worker deaths included) before it fails for good.
PARLEY_INGEST_MAX_ATTEMPTS = env_int("PARLEY_INGEST_MAX_ATTEMPTS", 3, minimum=1, maximum=20)

# --- OCR, figures, audio ------------------------------------------------------------------
# Tesseract reads scanned PDF pages and image documents (rag/parsing/ocr.py).
PARLEY_OCR_ENABLED = env_bool("PARLEY_OCR_ENABLED", True)
# The pack of OCR's first pass; the detected language's pack reads the page again when it differs.
PARLEY_OCR_DEFAULT_LANGUAGE = env_str("PARLEY_OCR_DEFAULT_LANGUAGE", "eng") or "eng"
# A PDF page whose text layer has fewer characters than this is treated as a scan and OCR'd.
PARLEY_OCR_MIN_PAGE_CHARS = env_int("PARLEY_OCR_MIN_PAGE_CHARS", 20, minimum=0, maximum=10000)
PARLEY_OCR_DPI = env_int("PARLEY_OCR_DPI", 200, minimum=72, maximum=600)
PARLEY_OCR_TIMEOUT = env_int("PARLEY_OCR_TIMEOUT", 60, minimum=1, maximum=3600)
# Chunks whose OCR'd words average under this confidence (0-100) are marked low_confidence.
PARLEY_OCR_LOW_CONFIDENCE = env_int("PARLEY_OCR_LOW_CONFIDENCE", 60, minimum=0, maximum=100)
# Images declaring more pixels than this are refused before decoding (image bombs).
PARLEY_IMAGE_MAX_PIXELS = env_int("PARLEY_IMAGE_MAX_PIXELS", 40_000_000, minimum=10_000)
# Figures: images embedded in PDFs and DOCX, described by the workspace's vision model (or OCR'd).
PARLEY_FIGURES_PER_DOCUMENT = env_int("PARLEY_FIGURES_PER_DOCUMENT", 20, minimum=0, maximum=500)
PARLEY_FIGURE_MIN_SIDE = env_int("PARLEY_FIGURE_MIN_SIDE", 120, minimum=1, maximum=10000)
PARLEY_VISION_OPENAI_BASE_URL = env_str(
    "PARLEY_VISION_OPENAI_BASE_URL", "https://api.openai.com/v1"
)
PARLEY_VISION_OPENAI_API_KEY = env_str("PARLEY_VISION_OPENAI_API_KEY", "")
PARLEY_VISION_TIMEOUT = env_float("PARLEY_VISION_TIMEOUT", 30.0, minimum=1.0, maximum=600.0)
# Audio and video: ffmpeg extracts the sound, the workspace's transcription model transcribes it.
PARLEY_TRANSCRIPTION_OPENAI_BASE_URL = env_str(
    "PARLEY_TRANSCRIPTION_OPENAI_BASE_URL", "https://api.openai.com/v1"
)
PARLEY_TRANSCRIPTION_OPENAI_API_KEY = env_str("PARLEY_TRANSCRIPTION_OPENAI_API_KEY", "")
PARLEY_TRANSCRIPTION_TIMEOUT = env_float(
    "PARLEY_TRANSCRIPTION_TIMEOUT", 300.0, minimum=1.0, maximum=3600.0
)
