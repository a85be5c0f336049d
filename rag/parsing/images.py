"""Open untrusted image bytes safely: dimensions checked from the header before any pixel is decoded.

Pillow reads only the header on `Image.open`, so an image bomb (a small file declaring a huge
canvas) is refused before it can take the worker's memory; a damaged file fails with a reason.
"""

from __future__ import annotations

import io
import warnings

from django.conf import settings
from PIL import Image, UnidentifiedImageError

from rag.errors import IngestError


def image_open(data: bytes, *, label: str = "image") -> Image.Image:
    """The decoded image (the first frame of a multi-page TIFF); IngestError when corrupt or too large."""
    limit = settings.PARLEY_IMAGE_MAX_PIXELS
    try:
        with warnings.catch_warnings():
            # Pillow's own bomb check warns (and raises at twice its limit); ours below is stricter.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
            width, height = image.size
            if width * height > limit:
                raise IngestError(
                    "image_too_large",
                    f"The {label} declares {width:,} × {height:,} pixels, over the"
                    f" {limit:,}-pixel limit (PARLEY_IMAGE_MAX_PIXELS): refused as an image bomb.",
                )
            image.load()
    except IngestError:
        raise
    except Image.DecompressionBombError as exc:
        raise IngestError(
            "image_too_large", f"The {label} is too large to decode: refused as an image bomb."
        ) from exc
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise IngestError(
            "corrupt_image",
            f"The {label} is damaged or not an image Parley reads ({type(exc).__name__}).",
        ) from exc
    return image


def image_png(image: Image.Image, *, longest: int = 1600) -> bytes:
    """The image as an RGB PNG, scaled down to at most `longest` pixels on its longer side."""
    picture = image.convert("RGB")
    picture.thumbnail((longest, longest))
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()
