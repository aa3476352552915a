"""Malformed client bytes: each one is refused (error reply or closed connection), and afterwards
the server is alive and a fresh pymongo client works (docs/DESIGN.md "Errors": nothing a client sends
can crash the server). Frames are built byte by byte with wire_client."""

import os
import socket
import struct
import time

import bson
import pymongo
import pytest

from quarry_server import CLIENT_OPTIONS
from wire_client import (OP_INSERT, OP_MSG, Closed, RawConnection, frame, op_compressed, op_msg,
                         op_msg_body, op_query, section_body, section_sequence)

PING = {"ping": 1, "$db": "admin"}


@pytest.fixture(autouse=True)
def healthy_afterwards(server):
    yield
    assert server.alive(), f"quarryd died; log:\n{server.log_tail()}"
    with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as c:
        coll = c.t_bad_input.after
        coll.insert_one({"check": True})
        assert coll.count_documents({"check": True}) >= 1
    with RawConnection(server.host, server.port) as conn:
        assert conn.command(PING).doc["ok"] == 1.0


def send_and_expect_close(server, data, shut_write=False):
    with RawConnection(server.host, server.port) as conn:
        try:
            conn.send(data)
            if shut_write:
                conn.sock.shutdown(socket.SHUT_WR)
        except (Closed, OSError):
            return  # closed while we were still sending
        state, reply = conn.rejected()
    assert state == "closed", f"expected the connection to be closed, got {reply}"


def send_and_expect_refusal(server, data, negotiate=None, shut_write=False):
    """Sends `data` and returns ("closed", None) or ("error", reply); fails on ok: 1."""
    with RawConnection(server.host, server.port) as conn:
        if negotiate is not None:
            conn.send(op_query({"ismaster": 1, "compression": negotiate}))
            assert conn.recv().doc.get("compression") == negotiate
        try:
            conn.send(data)
            if shut_write:
                conn.sock.shutdown(socket.SHUT_WR)
        except (Closed, OSError):
            return "closed", None
        return conn.rejected()


# --- framing ----------------------------------------------------------------------------------

def test_truncated_frame_then_eof(server):
    message = op_msg({"insert": "c", "documents": [{"x": 1}], "$db": "t_bad_input"})
    send_and_expect_close(server, message[:len(message) // 2], shut_write=True)


def test_truncated_header_then_eof(server):
    send_and_expect_close(server, op_msg(PING)[:7], shut_write=True)


def test_half_frame_from_one_client_does_not_block_others(server):
    stalled = RawConnection(server.host, server.port)
    try:
        stalled.send(op_msg(PING)[:20])
        start = time.monotonic()
        with RawConnection(server.host, server.port) as other:
            assert other.command(PING).doc["ok"] == 1.0
        assert time.monotonic() - start < 2
    finally:
        stalled.close()


@pytest.mark.parametrize("length", [48_000_001, 2**31 - 1, 100_000_000])
def test_oversized_message_length_closes_the_connection(server, length):
    body = op_msg(PING)[16:]
    send_and_expect_close(server, frame(OP_MSG, body, length=length))


@pytest.mark.parametrize("length", [0, 15, -1, -2**31])
def test_message_length_below_16_closes_the_connection(server, length):
    send_and_expect_close(server, frame(OP_MSG, op_msg(PING)[16:], length=length))


def test_length_shorter_than_the_sections_is_refused(server):
    body = op_msg({"insert": "c", "documents": [{"x": 1}], "$db": "t_bad_input"})[16:]
    send_and_expect_refusal(server, frame(OP_MSG, body, length=16 + len(body) - 10))


def test_length_longer_than_the_sections_is_refused(server):
    body = op_msg(PING)[16:] + b"\x00\x07\x00"  # trailing bytes: a broken second section
    send_and_expect_refusal(server, frame(OP_MSG, body))


def test_unknown_opcode_is_refused(server):
    send_and_expect_refusal(server, frame(9999, b"\x00" * 32))


def test_legacy_op_insert_is_refused(server):
    body = struct.pack("<i", 0) + b"t_bad_input.c\x00" + bson.encode({"x": 1})
    send_and_expect_refusal(server, frame(OP_INSERT, body))


def test_random_garbage_is_refused(server):
    # Its first four bytes may announce a long frame, so end the stream: the server must then
    # give up on the partial frame.
    send_and_expect_refusal(server, os.urandom(1 << 16), shut_write=True)


def test_frame_of_random_bytes_with_a_valid_length_is_refused(server):
    send_and_expect_refusal(server, frame(OP_MSG, os.urandom(4096)))


# --- OP_MSG sections and flags ------------------------------------------------------------------

def test_two_body_sections_are_refused(server):
    body = op_msg_body([section_body(PING), section_body({"ping": 2, "$db": "admin"})])
    state, reply = send_and_expect_refusal(server, frame(OP_MSG, body))
    if reply is not None:
        assert reply.doc["code"] == 40430, reply.doc


def test_unknown_section_kind_is_refused(server):
    body = op_msg_body([section_body(PING)]) + b"\x07" + bson.encode({"x": 1})
    send_and_expect_refusal(server, frame(OP_MSG, body))


def test_duplicate_document_sequence_identifier_is_refused(server):
    body = op_msg_body([section_body({"insert": "c", "$db": "t_bad_input"}),
                        section_sequence("documents", [{"_id": 1}]),
                        section_sequence("documents", [{"_id": 2}])])
    state, reply = send_and_expect_refusal(server, frame(OP_MSG, body))
    if reply is not None:
        assert reply.doc["code"] == 40431, reply.doc


def test_unknown_required_flag_bit_is_refused(server):
    state, reply = send_and_expect_refusal(server, op_msg(PING, flags=1 << 5))
    if reply is not None:
        assert reply.doc["code"] == 223, reply.doc


def test_unknown_optional_flag_bit_is_ignored(server):
    with RawConnection(server.host, server.port) as conn:
        assert conn.command(PING, flags=1 << 20).doc["ok"] == 1.0


def test_missing_db_is_an_error_reply(server):
    with RawConnection(server.host, server.port) as conn:
        reply = conn.command({"ping": 1})
        assert reply.doc["ok"] == 0 and reply.doc["code"] == 40571, reply.doc
        assert conn.command(PING).doc["ok"] == 1.0, "the connection should stay usable"


def test_correct_crc32c_checksum_is_accepted(server):
    with RawConnection(server.host, server.port) as conn:
        reply = conn.command(PING, checksum=True)
    assert reply.doc["ok"] == 1.0
    assert reply.flags & 1 == 0, "replies never carry a checksum"


def test_wrong_crc32c_checksum_is_refused(server):
    good = op_msg(PING, checksum=True)
    wrong = struct.unpack("<I", good[-4:])[0] ^ 0x5A5A5A5A
    state, reply = send_and_expect_refusal(server, op_msg(PING, checksum=wrong))
    if reply is not None:
        assert reply.doc["code"] == 288, reply.doc


# --- invalid BSON -------------------------------------------------------------------------------

def _command_with_raw_body(raw):
    return frame(OP_MSG, op_msg_body([section_body(raw)]))


def _valid_insert_bytes():
    return bytearray(bson.encode({"insert": "c", "$db": "t_bad_input",
                                  "documents": [{"_id": 1, "s": "hello"}]}))


def _broken_bson_cases():
    cases = {}
    raw = _valid_insert_bytes()
    raw[0:4] = struct.pack("<i", len(raw) + 50)  # document length past the section
    cases["length past the end"] = bytes(raw)
    raw = _valid_insert_bytes()
    raw[0:4] = struct.pack("<i", 3)
    cases["length below 5"] = bytes(raw)
    raw = _valid_insert_bytes()
    raw[-1] = 0x01  # no terminating NUL
    cases["no terminating NUL"] = bytes(raw)
    raw = _valid_insert_bytes()
    raw[4] = 0x42  # unknown element type for the first field
    cases["unknown element type"] = bytes(raw)
    raw = _valid_insert_bytes()
    at = raw.index(b"hello")
    raw[at - 4:at] = struct.pack("<i", 1000)  # string length past the document
    cases["string length past the end"] = bytes(raw)
    raw = _valid_insert_bytes()
    at = raw.index(b"hello")
    raw[at - 4:at] = struct.pack("<i", 0)  # string length 0 (must be >= 1)
    cases["string length zero"] = bytes(raw)
    raw = _valid_insert_bytes()
    raw[raw.index(b"hello") + 5] = 0x41  # string without its NUL
    cases["string without NUL"] = bytes(raw)
    raw = _valid_insert_bytes()
    at = raw.index(b"documents") + len(b"documents") + 1
    raw[at:at + 4] = struct.pack("<i", 10_000)  # nested array length past its parent
    cases["nested length past its parent"] = bytes(raw)
    raw = bytearray(bson.encode({"insert": "c", "$db": "t_bad_input", "ordered": True,
                                 "documents": [{"_id": 1, "s": "hello"}]}))
    raw[raw.index(b"ordered\x00") + len(b"ordered\x00")] = 0x02
    cases["bool with a value other than 0 or 1"] = bytes(raw)
    return cases


BROKEN_BSON = _broken_bson_cases()


@pytest.mark.parametrize("case", sorted(BROKEN_BSON))
def test_invalid_bson_in_op_msg_body_is_refused(server, case):
    send_and_expect_refusal(server, _command_with_raw_body(BROKEN_BSON[case]))
    with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as c:
        assert c.t_bad_input.c.find_one({"_id": 1, "s": "hello"}) is None, "broken insert applied"


def test_invalid_bson_in_a_document_sequence_is_refused(server):
    good = bson.encode({"_id": 2})
    bad = bytearray(good)
    bad[4] = 0x42
    body = op_msg_body([section_body({"insert": "c", "$db": "t_bad_input"}),
                        section_sequence("documents", [good, bytes(bad)])])
    send_and_expect_refusal(server, frame(OP_MSG, body))


def _deeply_nested(depth):
    prefix = []
    for level in range(depth):
        prefix.append(struct.pack("<i", 5 + 8 * (depth - level)) + b"\x03a\x00")
    return b"".join(prefix) + b"\x05\x00\x00\x00\x00" + b"\x00" * depth


@pytest.mark.parametrize("depth", [250, 100_000])
def test_deeply_nested_document_is_refused_without_crashing(server, depth):
    nested = _deeply_nested(depth)
    body = op_msg_body([section_body({"insert": "deep", "$db": "t_bad_input"}),
                        section_sequence("documents", [nested])])
    with RawConnection(server.host, server.port) as conn:
        conn.send(frame(OP_MSG, body))
        conn.sock.settimeout(30)
        try:
            reply = conn.recv()
        except Exception:  # closed is fine
            return
    if reply.doc.get("ok") == 1.0 and not reply.doc.get("writeErrors"):
        pytest.fail(f"a document nested {depth} deep was stored: {reply.doc}")


# --- OP_COMPRESSED --------------------------------------------------------------------------------

ALL = ["snappy", "zlib", "zstd"]


@pytest.mark.parametrize("compressor", ALL)
def test_corrupt_compressed_payload_is_refused(server, compressor):
    message = op_msg(PING)
    send_and_expect_refusal(server, op_compressed(message, compressor, payload=b"\xff" * 64),
                            negotiate=ALL)


@pytest.mark.parametrize("compressor", ALL)
def test_truncated_compressed_payload_is_refused(server, compressor):
    message = op_msg({"insert": "c", "documents": [{"x": "y" * 1000}], "$db": "t_bad_input"})
    whole = op_compressed(message, compressor)
    payload = whole[25:]
    send_and_expect_refusal(server, op_compressed(message, compressor,
                                                  payload=payload[:len(payload) // 2]),
                            negotiate=ALL)


@pytest.mark.parametrize("compressor", ALL)
@pytest.mark.parametrize("lie", [-1, +1, 47_999_990, 2**31 - 1, -5])
def test_uncompressed_size_that_lies_is_refused(server, compressor, lie):
    message = op_msg(PING)
    true_size = len(message) - 16
    size = true_size + lie if abs(lie) < 10 else lie
    send_and_expect_refusal(server, op_compressed(message, compressor, uncompressed_size=size),
                            negotiate=ALL)


@pytest.mark.parametrize("compressor_id", [4, 9, 255])
def test_unknown_compressor_id_is_refused(server, compressor_id):
    send_and_expect_refusal(server, op_compressed(op_msg(PING), "zstd", compressor_id=compressor_id),
                            negotiate=ALL)


def test_compressor_that_is_not_enabled_is_refused(make_server):
    only_snappy = make_server("snappy-only", extra_args=["--networkMessageCompressors", "snappy"])
    send_and_expect_refusal(only_snappy, op_compressed(op_msg(PING), "zstd"), negotiate=["snappy"])
    assert only_snappy.alive()
    only_snappy.stop()


def test_compressed_message_wrapping_a_compressed_message_is_refused(server):
    inner = op_compressed(op_msg(PING), "zlib")
    send_and_expect_refusal(server, op_compressed(inner, "zlib"), negotiate=ALL)


# --- many connections -------------------------------------------------------------------------------

def test_hundreds_of_abruptly_closed_connections(server):
    for i in range(300):
        s = socket.create_connection((server.host, server.port), timeout=5)
        if i % 3 == 1:
            s.sendall(op_query({"ismaster": 1})[:30])
        elif i % 3 == 2:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # RST
        s.close()


def test_pipelined_requests_get_replies_in_order(server):
    with RawConnection(server.host, server.port) as conn:
        conn.send(b"".join(op_msg(PING, request_id=1000 + i) for i in range(200)))
        assert [conn.recv().response_to for _ in range(200)] == [1000 + i for i in range(200)]
