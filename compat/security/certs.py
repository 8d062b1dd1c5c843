"""Test certificates for the security suite, made at test time with the openssl CLI (and Java's
keytool for the PKCS12 truststores Java reads), valid for two days, never committed.

`generate(directory)` writes, and returns as a dict of paths:
  ca.pem                      the test CA (CN=Strand Test CA)
  server.pem, server.key      the node: CN=localhost, SAN DNS:localhost, IP:127.0.0.1, signed by the CA
  server-keystore.pem         server.key (unencrypted PKCS#8) then server.pem then ca.pem: Kafka's
                              ssl.keystore.type=PEM file form
  server.p12                  the same key and chain as a PKCS12 keystore (password PASSWORD)
  renewed-keystore.pem        a new key and certificate with the node's names (a renewal), PEM form
  intruder-keystore.pem       CN=intruder with the node's alternative names, PEM form
  truststore.p12              the CA as a trusted entry of a PKCS12 truststore (password PASSWORD)
  client.pem, client.key      CN=client,OU=test,O=strand, signed by the CA; client.p12 (PASSWORD)
  client-keystore.pem         client.key then client.pem then ca.pem (Java's PEM keystore form)
  untrusted-ca.pem            a second CA no broker trusts; untrusted-truststore.p12
  untrusted-client.pem, untrusted-client.key, untrusted-client.p12
                              CN=client,OU=test,O=strand again, signed by the untrusted CA
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

PASSWORD = "strand-test-pass"
DAYS = "2"
CLIENT_SUBJECT = "/O=strand/OU=test/CN=client"


def _run(*args: str, cwd: Path) -> None:
    done = subprocess.run(list(args), cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"certs: {' '.join(args)} exited with {done.returncode}:\n{done.stdout}{done.stderr}")


def _key(name: str, cwd: Path) -> None:
    # PKCS#8, unencrypted: what Kafka's PEM keystore reads without ssl.key.password.
    _run("openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", f"{name}.key", cwd=cwd)


def _ca(name: str, subject: str, cwd: Path) -> None:
    _key(name, cwd)
    _run("openssl", "req", "-x509", "-new", "-key", f"{name}.key", "-subj", subject, "-days", DAYS, "-sha256",
         "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
         "-out", f"{name}.pem", cwd=cwd)


def _leaf(name: str, subject: str, ca: str, extensions: str, cwd: Path) -> None:
    _key(name, cwd)
    _run("openssl", "req", "-new", "-key", f"{name}.key", "-subj", subject, "-out", f"{name}.csr", cwd=cwd)
    (cwd / f"{name}.ext").write_text(extensions)
    _run("openssl", "x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key",
         "-CAcreateserial", "-days", DAYS, "-sha256", "-extfile", f"{name}.ext", "-out", f"{name}.pem", cwd=cwd)
    _run("openssl", "pkcs12", "-export", "-inkey", f"{name}.key", "-in", f"{name}.pem", "-certfile", f"{ca}.pem",
         "-name", name, "-passout", f"pass:{PASSWORD}", "-out", f"{name}.p12", cwd=cwd)
    (cwd / f"{name}-keystore.pem").write_text(
        (cwd / f"{name}.key").read_text() + (cwd / f"{name}.pem").read_text() + (cwd / f"{ca}.pem").read_text())


def _truststore(ca: str, out: str, cwd: Path) -> None:
    java_home = os.environ.get("JAVA_HOME")
    keytool = str(Path(java_home) / "bin" / "keytool") if java_home else "keytool"
    _run(keytool, "-importcert", "-noprompt", "-storetype", "PKCS12", "-keystore", out, "-storepass", PASSWORD,
         "-alias", ca, "-file", f"{ca}.pem", cwd=cwd)


def generate(directory: Path) -> dict[str, str]:
    directory.mkdir(parents=True, exist_ok=True)
    server_ext = ("basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
                  "extendedKeyUsage=serverAuth,clientAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n")
    client_ext = "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n"
    _ca("ca", "/CN=Strand Test CA", directory)
    _leaf("server", "/CN=localhost", "ca", server_ext, directory)
    _leaf("client", CLIENT_SUBJECT, "ca", client_ext, directory)
    _leaf("renewed", "/CN=localhost", "ca", server_ext, directory)
    _leaf("intruder", "/CN=intruder", "ca", server_ext, directory)
    _ca("untrusted-ca", "/CN=Untrusted Test CA", directory)
    _leaf("untrusted-client", CLIENT_SUBJECT, "untrusted-ca", client_ext, directory)
    _truststore("ca", "truststore.p12", directory)
    _truststore("untrusted-ca", "untrusted-truststore.p12", directory)
    names = ["ca.pem", "server.pem", "server.key", "server-keystore.pem", "server.p12", "truststore.p12",
             "client.pem", "client.key", "client.p12", "client-keystore.pem", "untrusted-ca.pem",
             "untrusted-truststore.p12", "untrusted-client.pem", "untrusted-client.key", "untrusted-client.p12",
             "untrusted-client-keystore.pem", "renewed.pem", "renewed-keystore.pem", "intruder-keystore.pem"]
    paths = {name: str(directory / name) for name in names}
    paths["password"] = PASSWORD
    return paths
