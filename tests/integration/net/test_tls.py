"""TLS as mongod offers it (--tlsMode, --tlsCertificateKeyFile, --tlsCAFile,
--tlsAllowConnectionsWithoutCertificates, --tlsDisabledProtocols, and net.tls in the config
file), through pymongo, mongosh and libmongoc, with certificates made by `openssl` for the test."""

import os
import socket
import ssl
import subprocess
import time

import pymongo
import pymongo.errors
import pytest

from libmongoc_programs import run_libmongoc_program
from quarry_server import CLIENT_OPTIONS, REPO_ROOT
from tls_certificates import Certificates

FAIL_FAST = dict(serverSelectionTimeoutMS=3000, connectTimeoutMS=3000)


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return Certificates(str(tmp_path_factory.mktemp("certs")))


def _tls_args(certs, mode="requireTLS", ca=True, extra=()):
    args = ["--tlsMode", mode, "--tlsCertificateKeyFile", certs.server]
    if ca:
        args += ["--tlsCAFile", certs.ca]
    return args + list(extra)


def _tls_client(server, certs, certificate="client", **options):
    kwargs = dict(FAIL_FAST, tls=True, tlsCAFile=certs.ca)
    if certificate:
        kwargs["tlsCertificateKeyFile"] = getattr(certs, certificate)
    kwargs.update(options)
    return pymongo.MongoClient(server.host, server.port, **kwargs)


def _log(server):
    with open(server.log_path, encoding="utf-8", errors="replace") as f:
        return f.read()


def _wait_for_log(server, text, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if text in _log(server):
            return True
        time.sleep(0.05)
    return False


@pytest.fixture(scope="module")
def tls_server(make_server, certs):
    """requireTLS with client certificates required (a CA file, no exemption)."""
    return make_server("tls-require", extra_args=_tls_args(certs))


def test_pymongo_with_a_trusted_client_certificate_reads_and_writes(tls_server, certs):
    with _tls_client(tls_server, certs) as client:
        coll = client.tls_db.items
        coll.drop()
        coll.insert_many([{"_id": i, "v": "x" * i} for i in range(100)])
        assert coll.count_documents({}) == 100
        assert coll.find_one({"_id": 42})["v"] == "x" * 42


@pytest.mark.parametrize("compressor", ["zstd", "snappy", "zlib"])
def test_compression_over_tls_is_negotiated_and_counted(tls_server, certs, compressor):
    with _tls_client(tls_server, certs, compressors=compressor) as client:
        before = client.admin.command("serverStatus")["network"]["compression"][compressor]
        docs = [{"_id": i, "text": "compressible " * 200} for i in range(50)]
        client.tls_db[f"c_{compressor}"].drop()
        client.tls_db[f"c_{compressor}"].insert_many(docs)
        assert list(client.tls_db[f"c_{compressor}"].find().sort("_id", 1)) == docs
        after = client.admin.command("serverStatus")["network"]["compression"][compressor]
    assert after["decompressor"]["bytesIn"] > before["decompressor"]["bytesIn"]
    assert after["compressor"]["bytesOut"] > before["compressor"]["bytesOut"]


def test_client_without_a_certificate_is_refused_and_the_server_goes_on(tls_server, certs):
    with _tls_client(tls_server, certs, certificate=None) as client:
        with pytest.raises(pymongo.errors.ServerSelectionTimeoutError):
            client.admin.command("ping")
    assert _wait_for_log(tls_server, "TLS handshake failed")
    assert "peer did not return a certificate" in _log(tls_server)
    assert tls_server.alive()
    with _tls_client(tls_server, certs) as client:
        assert client.admin.command("ping")["ok"] == 1


def test_client_certificate_from_an_untrusted_ca_is_refused(tls_server, certs):
    with _tls_client(tls_server, certs, certificate="untrusted_client") as client:
        with pytest.raises(pymongo.errors.ServerSelectionTimeoutError):
            client.admin.command("ping")
    assert _wait_for_log(tls_server, "certificate verify failed")
    assert tls_server.alive()


def test_client_that_does_not_trust_the_server_certificate_fails(tls_server, certs):
    # The client checks the server against the system CAs, which never signed the test CA.
    with pymongo.MongoClient(tls_server.host, tls_server.port, tls=True,
                             tlsCertificateKeyFile=certs.client, **FAIL_FAST) as client:
        with pytest.raises(pymongo.errors.ServerSelectionTimeoutError):
            client.admin.command("ping")
    assert tls_server.alive()


def test_require_tls_refuses_a_plain_client_with_a_logged_reason(tls_server):
    with pymongo.MongoClient(tls_server.host, tls_server.port, **FAIL_FAST) as client:
        with pytest.raises(pymongo.errors.ServerSelectionTimeoutError):
            client.admin.command("ping")
    assert _wait_for_log(tls_server, "requires TLS")
    assert tls_server.alive()


def test_allow_tls_serves_plain_and_tls_clients_on_one_port(make_server, certs):
    server = make_server("tls-allow", extra_args=_tls_args(certs, mode="allowTLS", ca=False))
    with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as plain:
        plain.mixed.c.insert_one({"_id": "plain"})
    with _tls_client(server, certs, certificate=None) as secure:
        secure.mixed.c.insert_one({"_id": "tls"})
        assert sorted(d["_id"] for d in secure.mixed.c.find()) == ["plain", "tls"]


def test_prefer_tls_with_optional_certificates(make_server, certs):
    server = make_server("tls-prefer", extra_args=_tls_args(
        certs, mode="preferTLS", extra=["--tlsAllowConnectionsWithoutCertificates"]))
    for certificate in (None, "client"):
        with _tls_client(server, certs, certificate=certificate) as client:
            assert client.admin.command("ping")["ok"] == 1
    with pymongo.MongoClient(server.uri(), **CLIENT_OPTIONS) as plain:
        assert plain.admin.command("ping")["ok"] == 1
    # A certificate that is presented must still be trusted.
    with _tls_client(server, certs, certificate="untrusted_client") as client:
        with pytest.raises(pymongo.errors.ServerSelectionTimeoutError):
            client.admin.command("ping")


def _handshake_version(server, certs, version):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.load_verify_locations(certs.ca)
    context.load_cert_chain(certs.client)
    context.minimum_version = version
    context.maximum_version = version
    with socket.create_connection((server.host, server.port), timeout=5) as raw:
        with context.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
            return tls.version()


def test_disabled_protocols_are_refused(make_server, certs):
    server = make_server("tls-protocols",
                         extra_args=_tls_args(certs, extra=["--tlsDisabledProtocols", "TLS1_3"]))
    assert _handshake_version(server, certs, ssl.TLSVersion.TLSv1_2) == "TLSv1.2"
    with pytest.raises(ssl.SSLError):
        _handshake_version(server, certs, ssl.TLSVersion.TLSv1_3)
    assert server.alive()


def test_config_file_net_tls_keys(make_server, certs, tmp_path):
    config = tmp_path / "quarryd.conf"
    server = make_server("tls-config", start=False)
    config.write_text(
        "net:\n"
        f"  port: {server.port}\n"
        "  bindIp: 127.0.0.1\n"
        "  tls:\n"
        "    mode: requireTLS\n"
        f"    certificateKeyFile: {certs.server}\n"
        f"    CAFile: {certs.ca}\n"
        "    allowConnectionsWithoutCertificates: true\n"
        "    disabledProtocols: TLS1_0,TLS1_1\n"
        "storage:\n"
        f"  dbPath: {server.dbpath}\n")
    server.args = ["--config", str(config)]
    server.start()
    with _tls_client(server, certs, certificate=None) as client:
        opts = client.admin.command("getCmdLineOpts")["parsed"]["net"]["tls"]
        assert opts["mode"] == "requireTLS"
        assert opts["allowConnectionsWithoutCertificates"] is True
    with pymongo.MongoClient(server.uri(), **FAIL_FAST) as plain:
        with pytest.raises(pymongo.errors.ServerSelectionTimeoutError):
            plain.admin.command("ping")


@pytest.mark.parametrize("args, message", [
    (["--tlsMode", "requireTLS"], "needs tlsCertificateKeyFile"),
    (["--tlsMode", "sometimesTLS"], "unknown TLS mode"),
    (["--tlsMode", "requireTLS", "--tlsCertificateKeyFile", "/nonexistent.pem"],
     "cannot read TLS file"),
    (["--tlsDisabledProtocols", "TLS1_9"], "unknown TLS protocol"),
])
def test_bad_tls_options_stop_startup_with_a_clear_message(quarry_binary, tmp_path, args, message):
    proc = subprocess.run([quarry_binary, "--dbpath", str(tmp_path / "db"), "--port", "1"] + args,
                          capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert proc.returncode != 0
    assert message in proc.stderr


def test_unsupported_tls_config_key_is_refused(quarry_binary, tmp_path):
    config = tmp_path / "quarryd.conf"
    config.write_text("net:\n  tls:\n    mode: disabled\n    certificateKeyFilePassword: x\n")
    proc = subprocess.run([quarry_binary, "--config", str(config)], capture_output=True,
                          text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert proc.returncode != 0
    assert "net.tls.certificateKeyFilePassword is not supported" in proc.stderr


def test_mongosh_connects_with_tls(tls_server, certs):
    mongosh = os.path.join(REPO_ROOT, "node_modules", ".bin", "mongosh")
    if not os.access(mongosh, os.X_OK):
        pytest.fail("mongosh is missing: run npm ci", pytrace=False)
    proc = subprocess.run(
        [mongosh, "--quiet", "--tls", "--tlsCAFile", certs.ca, "--tlsCertificateKeyFile",
         certs.client, f"mongodb://{tls_server.host}:{tls_server.port}/shell_tls",
         "--eval", "db.c.insertOne({_id: 1, v: 'over tls'}); print(db.c.findOne({_id: 1}).v)"],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "over tls" in proc.stdout


def test_libmongoc_crud_over_tls_with_each_compressor(tls_server, certs):
    run_libmongoc_program(tls_server, "QUARRY_LIBMONGOC_CLIENT_TEST",
                          "quarry_libmongoc_client_test", 180, uri_options=(
                              f"tls=true&tlsCAFile={certs.ca}"
                              f"&tlsCertificateKeyFile={certs.client}"))
