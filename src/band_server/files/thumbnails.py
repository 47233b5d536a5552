"""Thumbnails of uploaded images, made on the server with Pillow.

An image of a type the web app previews (PNG, JPEG, GIF, WebP) is decoded only after its
header says it is small enough: at most ``MAX_SOURCE_BYTES`` of file and ``MAX_PIXELS``
pixels (Pillow's own decompression-bomb check, raised to an error, backs that up). The first
frame is turned upright by its EXIF orientation, shrunk to fit ``MAX_SIDE`` and written as a
new WebP: no EXIF, no ICC profile, no comment, nothing of the upload's metadata survives.
Pure and blocking: the caller runs it in a worker thread.
"""

from __future__ import annotations

import io
import warnings

from PIL import Image, ImageOps, UnidentifiedImageError

__all__ = [
    "MAX_PIXELS",
    "MAX_SIDE",
    "MAX_SOURCE_BYTES",
    "SOURCE_FORMATS",
    "THUMB_TYPE",
    "NotAThumbnail",
    "thumbnail",
]

MAX_SIDE = 480  # pixels, the longer side (shown at half that on a 2x screen)
MAX_PIXELS = 40_000_000  # a 40 MP photo decodes; a bomb of 30,000 x 30,000 does not
MAX_SOURCE_BYTES = 32 * 1024 * 1024
SOURCE_FORMATS = ("PNG", "JPEG", "GIF", "WEBP")  # files.serving's INLINE_TYPES
THUMB_TYPE = "image/webp"
QUALITY = 80


class NotAThumbnail(Exception):
    """The bytes are no image we make a thumbnail of (what, in words, is ``str(exc)``)."""


def _open(data: bytes) -> Image.Image:
    if len(data) > MAX_SOURCE_BYTES:
        raise NotAThumbnail(f"the image is larger than {MAX_SOURCE_BYTES} bytes")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=SOURCE_FORMATS)
    except (Image.DecompressionBombWarning, Image.DecompressionBombError) as exc:
        raise NotAThumbnail(f"the image has more than {MAX_PIXELS} pixels") from exc
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        raise NotAThumbnail("the file is not an image that can be read") from exc
    width, height = image.size
    if width < 1 or height < 1 or width * height > MAX_PIXELS:
        raise NotAThumbnail(f"the image has more than {MAX_PIXELS} pixels")
    return image


def thumbnail(data: bytes, max_side: int = MAX_SIDE) -> bytes:
    """A WebP of the image's first frame that fits ``max_side``, without any metadata."""
    image = _open(data)
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            image.seek(0)
            if image.format == "JPEG":
                image.draft("RGB", (max_side, max_side))  # decode at a smaller scale
            upright = ImageOps.exif_transpose(image)
            mode = "RGBA" if upright.mode in ("RGBA", "LA", "P", "PA") else "RGB"
            small = upright.convert(mode)
            small.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
        except (Image.DecompressionBombWarning, Image.DecompressionBombError) as exc:
            raise NotAThumbnail(f"the image has more than {MAX_PIXELS} pixels") from exc
        except (OSError, ValueError, SyntaxError, EOFError) as exc:
            raise NotAThumbnail("the image is damaged and can't be read") from exc
    # A new image of the pixels alone: nothing of the upload's info travels with it.
    clean = Image.new(mode, small.size)
    clean.paste(small)
    out = io.BytesIO()
    clean.save(out, "WEBP", quality=QUALITY, method=4)
    return out.getvalue()
