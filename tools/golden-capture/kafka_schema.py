"""Minimal schema-driven decoder for Kafka request/response frames.

The message schemas are Kafka's own JSON message specs
(`common/message/*.json`), read straight out of the kafka-clients jar, so the
decoder always matches the broker version the frames were captured from.

It is used by select_golden.py to
  * name API keys (ProduceRequest -> "Produce"),
  * work out request/response header versions (flexible or not),
  * check that every captured frame decodes and is consumed exactly, and
  * find the record batches inside Produce requests and Fetch responses.

Only decoding is implemented; it is a capture sanity check, not a codec.
"""

from __future__ import annotations

import json
import re
import struct
import zipfile
from dataclasses import dataclass, field

PRIMITIVE_SIZES = {
    "bool": 1,
    "int8": 1,
    "int16": 2,
    "uint16": 2,
    "int32": 4,
    "uint32": 4,
    "int64": 8,
    "float64": 8,
    "uuid": 16,
}
VARIABLE_PRIMITIVES = {"string", "bytes", "records"}
COMPRESSION = {0: "none", 1: "gzip", 2: "snappy", 3: "lz4", 4: "zstd"}
API_VERSIONS_KEY = 18


class DecodeError(Exception):
    pass


class Versions:
    """A Kafka version range such as "0+", "3-13", "5" or "none"."""

    def __init__(self, spec: str | None) -> None:
        spec = (spec or "none").strip()
        if spec == "none":
            self.lo, self.hi = 1, 0  # empty
        elif spec.endswith("+"):
            self.lo, self.hi = int(spec[:-1]), 1 << 15
        elif "-" in spec:
            lo, hi = spec.split("-")
            self.lo, self.hi = int(lo), int(hi)
        else:
            self.lo = self.hi = int(spec)

    def __contains__(self, v: int) -> bool:
        return self.lo <= v <= self.hi


@dataclass
class Spec:
    name: str
    type: str
    api_key: int | None
    valid: Versions
    flexible: Versions
    fields: list
    common: dict


def _load_json(text: str) -> dict:
    # Kafka's spec files carry // comment lines (the license header).
    return json.loads("\n".join(l for l in text.splitlines() if not l.lstrip().startswith("//")))


class Schemas:
    def __init__(self, jar_path: str) -> None:
        self.requests: dict[int, Spec] = {}
        self.responses: dict[int, Spec] = {}
        self.headers: dict[str, Spec] = {}
        with zipfile.ZipFile(jar_path) as jar:
            for entry in jar.namelist():
                if not re.fullmatch(r"common/message/\w+\.json", entry):
                    continue
                doc = _load_json(jar.read(entry).decode("utf-8"))
                spec = Spec(
                    name=doc["name"],
                    type=doc["type"],
                    api_key=doc.get("apiKey"),
                    valid=Versions(doc.get("validVersions")),
                    flexible=Versions(doc.get("flexibleVersions")),
                    fields=doc.get("fields", []),
                    common={s["name"]: s for s in doc.get("commonStructs", [])},
                )
                if spec.type == "request":
                    self.requests[spec.api_key] = spec
                elif spec.type == "response":
                    self.responses[spec.api_key] = spec
                elif spec.type == "header":
                    self.headers[spec.name] = spec
        if "RequestHeader" not in self.headers or not self.requests:
            raise RuntimeError(f"no Kafka message specs found in {jar_path}")

    def api_name(self, api_key: int) -> str:
        spec = self.requests.get(api_key)
        if spec is None:
            return f"Unknown{api_key}"
        return spec.name[: -len("Request")] if spec.name.endswith("Request") else spec.name

    def request_header_version(self, api_key: int, api_version: int) -> int:
        spec = self.requests.get(api_key)
        return 2 if spec is not None and api_version in spec.flexible else 1

    def response_header_version(self, api_key: int, api_version: int) -> int:
        if api_key == API_VERSIONS_KEY:
            return 0  # ApiVersions responses always use header v0
        spec = self.responses.get(api_key)
        return 1 if spec is not None and api_version in spec.flexible else 0


@dataclass
class BatchInfo:
    magic: int
    compression: str
    transactional: bool
    control: bool
    records: int
    truncated: bool = False

    def label(self) -> str:
        if self.truncated:
            return "truncated-batch"
        parts = [self.compression, f"{self.records}rec"]
        if self.transactional:
            parts.append("txn")
        if self.control:
            parts.append("control")
        if self.magic != 2:
            parts.append(f"magic{self.magic}")
        return "/".join(parts)


def parse_record_batches(data: bytes) -> list[BatchInfo]:
    out = []
    off = 0
    while off + 17 <= len(data):
        (length,) = struct.unpack_from(">i", data, off + 8)
        end = off + 12 + length
        magic = data[off + 16]
        if end > len(data) or length < 0:
            out.append(BatchInfo(magic, "?", False, False, 0, truncated=True))
            break
        if magic >= 2:
            (attrs,) = struct.unpack_from(">h", data, off + 21)
            (count,) = struct.unpack_from(">i", data, off + 57)
            out.append(BatchInfo(magic, COMPRESSION.get(attrs & 7, "?"), bool(attrs & 0x10), bool(attrs & 0x20), count))
        else:
            attrs = data[off + 17]
            out.append(BatchInfo(magic, COMPRESSION.get(attrs & 7, "?"), False, False, 1))
        off = end
    if 0 < len(data) - off < 17:
        out.append(BatchInfo(-1, "?", False, False, 0, truncated=True))
    return out


@dataclass
class Reader:
    buf: bytes
    pos: int = 0
    batches: list = field(default_factory=list)

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.buf):
            raise DecodeError(f"need {n} bytes at offset {self.pos}, have {len(self.buf) - self.pos}")
        b = self.buf[self.pos : self.pos + n]
        self.pos += n
        return b

    def unpack(self, fmt: str):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def uvarint(self) -> int:
        result = shift = 0
        while True:
            b = self.take(1)[0]
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                return result
            shift += 7
            if shift > 35:
                raise DecodeError("varint too long")


class Decoder:
    """Decodes one message body against a Spec at a given version."""

    def __init__(self, spec: Spec, version: int) -> None:
        self.spec = spec
        self.version = version
        self.flexible = version in spec.flexible

    def decode(self, r: Reader) -> dict:
        return self._struct(r, self.spec.fields)

    def _struct(self, r: Reader, fields: list) -> dict:
        v = self.version
        out = {}
        tagged = {}
        for f in fields:
            if v not in Versions(f.get("versions")):
                continue
            if "taggedVersions" in f and v in Versions(f["taggedVersions"]):
                tagged[f["tag"]] = f
                continue
            out[f["name"]] = self._field(r, f)
        if self.flexible:
            for _ in range(r.uvarint()):
                tag = r.uvarint()
                size = r.uvarint()
                raw = r.take(size)
                f = tagged.get(tag)
                if f is None:
                    out[f"tag{tag}"] = raw.hex()
                    continue
                sub = Reader(raw, batches=r.batches)
                out[f["name"]] = self._field(sub, f)
                if sub.pos != len(raw):
                    raise DecodeError(f"tagged field {f['name']} has {len(raw) - sub.pos} trailing bytes")
        return out

    def _field(self, r: Reader, f: dict):
        v = self.version
        flexible = self.flexible
        if "flexibleVersions" in f:
            flexible = v in Versions(f["flexibleVersions"])
        nullable = v in Versions(f.get("nullableVersions"))
        t = f["type"]
        if t.startswith("[]"):
            n = r.uvarint() - 1 if flexible else r.unpack(">i")
            if n < 0:
                if not nullable:
                    raise DecodeError(f"null array {f['name']} not nullable")
                return None
            elem = t[2:]
            if elem in PRIMITIVE_SIZES or elem in VARIABLE_PRIMITIVES:
                return [self._primitive(r, elem, flexible, nullable, f["name"]) for _ in range(n)]
            fields = f.get("fields") or self._common(elem)
            return [self._struct(r, fields) for _ in range(n)]
        if t in PRIMITIVE_SIZES or t in VARIABLE_PRIMITIVES:
            return self._primitive(r, t, flexible, nullable, f["name"])
        fields = f.get("fields") or self._common(t)
        if nullable:
            present = r.unpack(">b")
            if present < 0:
                return None
        return self._struct(r, fields)

    def _common(self, name: str) -> list:
        try:
            return self.spec.common[name]["fields"]
        except KeyError:
            raise DecodeError(f"unknown struct type {name} in {self.spec.name}") from None

    def _primitive(self, r: Reader, t: str, flexible: bool, nullable: bool, name: str):
        if t == "bool":
            return r.take(1)[0] != 0
        if t == "int8":
            return r.unpack(">b")
        if t == "int16":
            return r.unpack(">h")
        if t == "uint16":
            return r.unpack(">H")
        if t == "int32":
            return r.unpack(">i")
        if t == "uint32":
            return r.unpack(">I")
        if t == "int64":
            return r.unpack(">q")
        if t == "float64":
            return r.unpack(">d")
        if t == "uuid":
            return r.take(16).hex()
        if t == "string":
            n = r.uvarint() - 1 if flexible else r.unpack(">h")
        else:  # bytes, records
            n = r.uvarint() - 1 if flexible else r.unpack(">i")
        if n < 0:
            if not nullable:
                raise DecodeError(f"null {t} {name} not nullable")
            return None
        data = r.take(n)
        if t == "string":
            return data.decode("utf-8")
        if t == "records":
            r.batches.extend(parse_record_batches(data))
            return f"<{n} bytes of records>"
        return data.hex()


@dataclass
class Decoded:
    header_version: int
    body_version: int
    batches: list
    note: str = ""


def decode_frame(schemas: Schemas, kind: str, api_key: int, api_version: int, payload: bytes) -> Decoded:
    """Decodes a request or response payload (without size prefix) fully.

    Raises DecodeError if it does not decode or leaves trailing bytes.
    """
    if kind == "request":
        specs = schemas.requests
        hv = schemas.request_header_version(api_key, api_version)
        header = schemas.headers["RequestHeader"]
    else:
        specs = schemas.responses
        hv = schemas.response_header_version(api_key, api_version)
        header = schemas.headers["ResponseHeader"]
    spec = specs.get(api_key)
    if spec is None:
        raise DecodeError(f"no schema for api key {api_key}")
    if api_version not in spec.valid:
        raise DecodeError(f"{spec.name} v{api_version} outside valid versions")

    def attempt(version: int) -> Decoded:
        r = Reader(payload)
        Decoder(header, hv).decode(r)
        Decoder(spec, version).decode(r)
        if r.pos != len(payload):
            raise DecodeError(f"{len(payload) - r.pos} trailing bytes after {spec.name} v{version}")
        return Decoded(hv, version, r.batches)

    try:
        return attempt(api_version)
    except DecodeError:
        # A broker answers an ApiVersions request whose version it does not
        # support with a v0 response body (KIP-511); accept that shape too.
        if kind == "response" and api_key == API_VERSIONS_KEY and api_version != 0:
            d = attempt(0)
            d.note = "response body is ApiVersions v0 (unsupported-version fallback)"
            return d
        raise
