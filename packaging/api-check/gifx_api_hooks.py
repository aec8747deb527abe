"""schemathesis hooks of `make api-check` (packaging/api-check/api_check.py): real inputs for POST /v1/convert.

A body drawn from `type: string, format: binary` is random bytes, which the service refuses (415, or 422 when
it happens to start like a GIF), so no conversion would run and no /v1/o/{key} would exist for the stateful
phase's links to reach. These hooks draw most bodies from small GIF, animated WebP and APNG files made with
Pillow (GIFX_API_CHECK_FIXTURES, a folder), and most queries from ones the service converts, beside what
schemathesis generated (kept as one choice among them, so refusals are still exercised). The signed form's path
is drawn the same way from URLs signed with the service's key (GIFX_API_CHECK_SIGNING_KEY) naming those files on
a local origin (GIFX_API_CHECK_ORIGIN), so it converts too."""
import base64
import hashlib
import hmac
import os
import pathlib

import schemathesis
from hypothesis import strategies as st
from schemathesis.core.parameters import EncodedPath

FIXTURES = pathlib.Path(os.environ["GIFX_API_CHECK_FIXTURES"])
BODIES = [path.read_bytes() for path in sorted(FIXTURES.iterdir()) if path.suffix in (".gif", ".webp", ".png")]
assert len(BODIES) == 3, f"expected a GIF, a WebP and an APNG in {FIXTURES}"

# Queries the service converts each fixture with: every format, a size, a codec, an edit, a stream.
QUERIES = [
    {"format": "mp4"},
    {"format": "mp4", "width": 16, "stream": "1"},
    {"format": "webm", "height": 8},
    {"format": "webm", "codec": "av1", "crf": 40},
    {"format": "webp", "quality": 60},
    {"format": "avif"},
    {"format": "jpg", "quality": 80},
    {"format": "sheet", "scale": 0.5},
    {"format": "timeline"},
    {"format": "webp", "reverse": "", "speed": "2"},
    {"format": "mp4", "from": "0.04", "to": "0.12", "boomerang": "1"},
    {"format": "auto"},
    {"format": "auto", "width": 16, "reverse": ""},
]

# format=auto chooses by Accept: browsers' own values for an <img> (Chromium, Firefox, Safari as WebKit documents it,
# an old Safari without AVIF or WebP, Chrome 84 with WebP only), beside what schemathesis generates.
ACCEPTS = [
    "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8",
    "image/avif,image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5",
    "image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5",
    "image/png,image/svg+xml,image/*;q=0.8,video/*;q=0.8,*/*;q=0.5",
    "image/webp,image/apng,image/*,*/*;q=0.8",
]


# The signed form: options (key:value, comma-separated) and a fixture on the local origin, signed as a CDN's
# page would be (HMAC-SHA256 over /{options}/{source}, base64url without padding).
SIGNED_OPTIONS = ["format:mp4", "format:webp,width:16", "format:jpg", "format:webm,stream:1", "format:timeline", "format:sheet",
                  "format:auto", "format:auto,width:16"]


def _base64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _signed(options: str, name: str) -> dict:
    source = _base64url(f"{os.environ['GIFX_API_CHECK_ORIGIN']}/{name}".encode())
    key = os.environ["GIFX_API_CHECK_SIGNING_KEY"].encode()
    signature = _base64url(hmac.new(key, f"/{options}/{source}".encode(), hashlib.sha256).digest())
    # The options' ':' and ',' are separators and are written as they are (the spec says so: a percent-encoded
    # one is part of a value, RFC 3986 section 2.2); schemathesis percent-encodes every reserved character of a
    # path parameter unless the value is marked as encoded already.
    return {"signature": signature, "options": EncodedPath(options), "source": source}


SIGNED = [_signed(options, name) for options in SIGNED_OPTIONS for name in ("a.gif", "b.webp", "c.png")]


def _is_convert(context) -> bool:
    operation = context.operation
    return operation is not None and operation.method.upper() == "POST" and operation.path == "/v1/convert"


def _takes_an_input(context) -> bool:
    """POST /v1/convert and POST /v1/timeline: their bodies are drawn from the fixtures."""
    operation = context.operation
    return _is_convert(context) or (operation is not None and operation.method.upper() == "POST" and operation.path == "/v1/timeline")


@schemathesis.hook
def flatmap_body(context, body):
    if not _takes_an_input(context):
        return st.just(body)
    return st.sampled_from(BODIES + [body])


# GET /v1/embed: the fixtures on the local origin, so the markup is written (and a text of markup as alt).
EMBED_QUERIES = [
    {"source": f"{os.environ['GIFX_API_CHECK_ORIGIN']}/{name}", **extra}
    for name in ("a.gif", "b.webp", "c.png")
    for extra in ({}, {"alt": "<script>alert(1)</script>"}, {"base": "https://cdn.example"})
]


# POST /v1/timeline: the picture, with a heading made of markup too.
TIMELINE_QUERIES = [{"format": "svg"}, {"format": "svg", "title": "<script>alert(1)</script>"}]


@schemathesis.hook
def flatmap_query(context, query):
    operation = context.operation
    if operation is not None and operation.path == "/v1/embed":
        return st.sampled_from(EMBED_QUERIES + [query])
    if operation is not None and operation.path == "/v1/timeline":
        return st.sampled_from(TIMELINE_QUERIES + [query])
    if not _is_convert(context):
        return st.just(query)
    return st.sampled_from(QUERIES + [query])


@schemathesis.hook
def flatmap_path_parameters(context, path_parameters):
    operation = context.operation
    if operation is None or operation.path != "/v1/{signature}/{options}/{source}":
        return st.just(path_parameters)
    return st.sampled_from(SIGNED + [path_parameters])


@schemathesis.hook
def flatmap_headers(context, headers):
    operation = context.operation
    if operation is None or operation.path not in ("/v1/convert", "/v1/{signature}/{options}/{source}"):
        return st.just(headers)
    return st.sampled_from([{**(headers or {}), "Accept": accept} for accept in ACCEPTS] + [headers])
