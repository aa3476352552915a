"""Certificates for TLS tests, made with the `openssl` command in a temporary directory: a CA,
a server certificate for 127.0.0.1 and localhost, a client certificate from the same CA, and a
client certificate from another CA that the server does not trust. Files are PEM, with the
certificate and its key together where mongod's options want them so (tlsCertificateKeyFile)."""

import os
import subprocess


def _openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True,
                   stdin=subprocess.DEVNULL)


def _make_ca(directory, name):
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
             "-keyout", f"{name}.key", "-out", f"{name}.pem", "-subj", f"/CN={name}",
             cwd=directory)


def _make_signed(directory, name, ca, extensions):
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key",
             "-out", f"{name}.csr", "-subj", f"/CN={name}", cwd=directory)
    with open(os.path.join(directory, f"{name}.ext"), "w") as f:
        f.write(extensions)
    _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key",
             "-CAcreateserial", "-days", "2", "-out", f"{name}.crt", "-extfile", f"{name}.ext",
             cwd=directory)
    combined = os.path.join(directory, f"{name}.pem")
    with open(combined, "w") as out:
        for part in (f"{name}.crt", f"{name}.key"):
            with open(os.path.join(directory, part)) as f:
                out.write(f.read())
    return combined


class Certificates:
    """Paths: ca (the trusted CA), server, client (signed by ca), untrusted_client (signed by
    another CA). server and the clients hold certificate and key in one file."""

    def __init__(self, directory):
        os.makedirs(directory, exist_ok=True)
        _make_ca(directory, "ca")
        _make_ca(directory, "other-ca")
        self.ca = os.path.join(directory, "ca.pem")
        self.server = _make_signed(
            directory, "server", "ca",
            "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n")
        self.client = _make_signed(directory, "client", "ca", "extendedKeyUsage=clientAuth\n")
        self.untrusted_client = _make_signed(directory, "untrusted", "other-ca",
                                             "extendedKeyUsage=clientAuth\n")
