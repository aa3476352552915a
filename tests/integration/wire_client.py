"""A raw-socket MongoDB wire client for tests that must send exact (or broken) bytes.

Builds OP_MSG / OP_QUERY / OP_COMPRESSED frames byte by byte (MongoDB's OP_MSG and OP_COMPRESSED
specifications), reads replies, and tells "the server closed the connection" from "the server
replied".
"""

import socket
import struct
import zlib

import bson
import snappy
import zstandard

OP_REPLY = 1
OP_INSERT = 2002
OP_QUERY = 2004
OP_COMPRESSED = 2012
OP_MSG = 2013

COMPRESSOR_IDS = {"noop": 0, "snappy": 1, "zlib": 2, "zstd": 3}

_CRC32C_TABLE = []
for _n in range(256):
    _c = _n
    for _ in range(8):
        _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
    _CRC32C_TABLE.append(_c)


def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc = _CRC32C_TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def header(length, request_id, response_to, op_code):
    return struct.pack("<iiii", length, request_id, response_to, op_code)


def frame(op_code, body, request_id=1, response_to=0, length=None):
    """A message: header + body; `length` overrides the messageLength field (to lie)."""
    return header(16 + len(body) if length is None else length, request_id, response_to,
                  op_code) + body


def section_body(doc):
    return b"\x00" + (doc if isinstance(doc, bytes) else bson.encode(doc))


def section_sequence(identifier, docs):
    payload = identifier.encode() + b"\x00" + b"".join(
        d if isinstance(d, bytes) else bson.encode(d) for d in docs)
    return b"\x01" + struct.pack("<i", 4 + len(payload)) + payload


def op_msg_body(sections, flags=0):
    return struct.pack("<I", flags) + b"".join(sections)


def op_msg(doc, request_id=1, flags=0, extra_sections=(), checksum=None):
    """An OP_MSG with one body section (`doc`: dict or raw BSON bytes). checksum: None (no
    checksum), True (a correct CRC-32C) or an int (that value, e.g. a wrong one)."""
    if checksum is not None:
        flags |= 0x1
    body = op_msg_body([section_body(doc), *extra_sections], flags)
    if checksum is None:
        return frame(OP_MSG, body, request_id)
    unsigned = frame(OP_MSG, body, request_id, length=16 + len(body) + 4)
    value = crc32c(unsigned) if checksum is True else checksum
    return unsigned + struct.pack("<I", value)


def op_query(doc, request_id=1, collection="admin.$cmd", number_to_return=-1, flags=0):
    body = (struct.pack("<i", flags) + collection.encode() + b"\x00" +
            struct.pack("<ii", 0, number_to_return) + bson.encode(doc))
    return frame(OP_QUERY, body, request_id)


def compress(data, compressor):
    if compressor == "snappy":
        return snappy.compress(data)
    if compressor == "zlib":
        return zlib.compress(data)
    if compressor == "zstd":
        return zstandard.ZstdCompressor().compress(data)
    if compressor == "noop":
        return data
    raise ValueError(compressor)


def op_compressed(message, compressor, payload=None, uncompressed_size=None, compressor_id=None):
    """Wraps a whole message (header included) in OP_COMPRESSED. `payload`, `uncompressed_size`
    and `compressor_id` override what would be correct."""
    length, request_id, response_to, op_code = struct.unpack("<iiii", message[:16])
    inner = message[16:]
    data = compress(inner, compressor) if payload is None else payload
    body = struct.pack("<iiB", op_code, len(inner) if uncompressed_size is None else uncompressed_size,
                       COMPRESSOR_IDS[compressor] if compressor_id is None else compressor_id) + data
    return frame(OP_COMPRESSED, body, request_id, response_to)


def decompress(data, compressor_id, size):
    if compressor_id == 1:
        return snappy.uncompress(data)
    if compressor_id == 2:
        return zlib.decompress(data)
    if compressor_id == 3:
        return zstandard.ZstdDecompressor().decompress(data, max_output_size=size)
    if compressor_id == 0:
        return data
    raise ValueError(f"unknown compressor id {compressor_id}")


class Reply:
    """A decoded reply: op_code (after decompression), response_to, flags, doc, raw doc bytes,
    and the compressor id it came with (None if uncompressed)."""

    def __init__(self, op_code, request_id, response_to, flags, raw, compressor_id, sections):
        self.op_code = op_code
        self.request_id = request_id
        self.response_to = response_to
        self.flags = flags
        self.raw = raw
        self.doc = bson.decode(raw)
        self.compressor_id = compressor_id
        self.sections = sections  # number of sections in an OP_MSG reply

    def __repr__(self):
        return f"Reply(op={self.op_code}, flags={self.flags}, doc={self.doc!r})"


class Closed(Exception):
    """The server closed (or reset) the connection instead of replying."""


class RawConnection:
    def __init__(self, host, port, timeout=10):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def send(self, data):
        try:
            self.sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError) as e:
            raise Closed(str(e)) from e

    def _recv_exact(self, n):
        chunks, got = [], 0
        while got < n:
            try:
                chunk = self.sock.recv(n - got)
            except ConnectionResetError as e:
                raise Closed("connection reset") from e
            if not chunk:
                raise Closed(f"EOF after {got} of {n} bytes")
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def recv(self):
        """Reads one reply. Raises Closed if the server closed the connection, socket.timeout
        if nothing came."""
        length, request_id, response_to, op_code = struct.unpack("<iiii", self._recv_exact(16))
        assert 16 <= length <= 48_000_000, f"reply with messageLength {length}"
        body = self._recv_exact(length - 16)
        compressor_id = None
        if op_code == OP_COMPRESSED:
            op_code, size, compressor_id = struct.unpack("<iiB", body[:9])
            body = decompress(body[9:], compressor_id, size)
            assert len(body) == size, f"decompressed {len(body)} bytes, header said {size}"
        if op_code == OP_MSG:
            flags = struct.unpack("<I", body[:4])[0]
            assert body[4] == 0, f"first section of a reply has kind {body[4]}"
            doc_len = struct.unpack("<i", body[5:9])[0]
            raw = body[5:5 + doc_len]
            sections = 1 if len(body) == 5 + doc_len else 2  # anything after the body is extra
            return Reply(op_code, request_id, response_to, flags, raw, compressor_id, sections)
        if op_code == OP_REPLY:
            flags, _cursor, _start, number = struct.unpack("<iqii", body[:20])
            assert number == 1, f"OP_REPLY numberReturned {number}"
            return Reply(op_code, request_id, response_to, flags, body[20:], compressor_id, 1)
        raise AssertionError(f"reply with unexpected opCode {op_code}")

    def command(self, doc, **kwargs):
        self.send(op_msg(doc, **kwargs))
        return self.recv()

    def rejected(self, timeout=10):
        """After sending something invalid: waits for the server's answer and returns
        ("closed", None) if it closed the connection or ("error", reply) if it replied ok: 0.
        Fails the test if it replied ok: 1 or said nothing within `timeout`."""
        self.sock.settimeout(timeout)
        try:
            reply = self.recv()
        except Closed:
            return "closed", None
        except socket.timeout:
            raise AssertionError(f"no reply and no close within {timeout} s") from None
        assert reply.doc.get("ok") in (0, 0.0, False), f"invalid input was accepted: {reply}"
        return "error", reply


def top_level_keys(raw):
    """The keys of a raw BSON document in order, duplicates kept (bson.decode would merge them)."""
    fixed = {0x01: 8, 0x06: 0, 0x07: 12, 0x08: 1, 0x09: 8, 0x0A: 0, 0x10: 4, 0x11: 8, 0x12: 8,
             0x13: 16, 0x7F: 0, 0xFF: 0}
    keys, pos, end = [], 4, len(raw) - 1
    while pos < end:
        kind = raw[pos]
        name_end = raw.index(b"\x00", pos + 1)
        keys.append(raw[pos + 1:name_end].decode())
        pos = name_end + 1
        if kind in fixed:
            pos += fixed[kind]
        elif kind in (0x02, 0x0D, 0x0E):
            pos += 4 + struct.unpack("<i", raw[pos:pos + 4])[0]
        elif kind in (0x03, 0x04, 0x0F):
            pos += struct.unpack("<i", raw[pos:pos + 4])[0]
        elif kind == 0x05:
            pos += 5 + struct.unpack("<i", raw[pos:pos + 4])[0]
        elif kind == 0x0B:
            pos = raw.index(b"\x00", raw.index(b"\x00", pos) + 1) + 1
        elif kind == 0x0C:
            pos += 4 + struct.unpack("<i", raw[pos:pos + 4])[0] + 12
        else:
            raise ValueError(f"BSON type {kind:#x}")
    return keys
