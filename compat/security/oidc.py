"""A local identity provider for the `jwks` group (KIP-768): an HTTPS server on 127.0.0.1 with
the node's test certificate that serves a JWK set (`/jwks.json`) and an OAuth client-credentials
token endpoint (`/token`), and the signed tokens the clients present.

Keys and signatures come from the openssl CLI (RS256: `openssl dgst -sha256 -sign`), as the
certificates do; nothing is committed. Two keys are made: the provider's, published in the JWK
set, and an intruder's, which no broker trusts.

`Provider(directory, certs).start()` returns the provider; `jwks_url`, `token_url`, `audience`,
`issuer` are what a broker's `sasl.oauthbearer.*` settings name; `token(...)` signs one.
The token endpoint answers any client id and secret with a token for `sub` = the client id,
except the client id `intruder`, which gets one signed by the untrusted key.
"""

from __future__ import annotations

import base64
import json
import ssl
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs

AUDIENCE = "strand-compat"
KEY_ID = "strand-compat-signer"
TOKEN_LIFETIME_S = 3600


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _openssl(*args: str, cwd: Path, data: bytes | None = None) -> bytes:
    done = subprocess.run(["openssl", *args], cwd=cwd, input=data, capture_output=True)
    if done.returncode != 0:
        raise RuntimeError(f"oidc: openssl {' '.join(args)} exited with {done.returncode}: {done.stderr.decode()}")
    return done.stdout


class Provider:
    def __init__(self, directory: Path, certs: dict[str, str]):
        self.directory = directory
        self.certs = certs
        self.server: ThreadingHTTPServer | None = None
        directory.mkdir(parents=True, exist_ok=True)
        for name in ("signer", "intruder"):
            _openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", f"{name}.key",
                     cwd=directory)

    @property
    def base_url(self) -> str:
        assert self.server is not None, "the provider is not started"
        return f"https://127.0.0.1:{self.server.server_address[1]}"

    @property
    def jwks_url(self) -> str:
        return f"{self.base_url}/jwks.json"

    @property
    def token_url(self) -> str:
        return f"{self.base_url}/token"

    @property
    def issuer(self) -> str:
        return self.base_url

    def jwks(self) -> dict:
        """The JWK set: the signer's public key only."""
        modulus = _openssl("rsa", "-in", "signer.key", "-noout", "-modulus", cwd=self.directory).decode()
        n = bytes.fromhex(modulus.strip().split("=", 1)[1])
        return {"keys": [{"kty": "RSA", "use": "sig", "alg": "RS256", "kid": KEY_ID,
                          "n": _b64(n), "e": _b64((65537).to_bytes(3, "big"))}]}

    def token(self, subject: str, lifetime_s: int = TOKEN_LIFETIME_S, key: str = "signer",
              audience: str = AUDIENCE) -> str:
        """An RS256 JWT for `subject`, expired if `lifetime_s` is negative, signed by `key`
        (`signer`, or `intruder`: a key no broker trusts)."""
        now = int(time.time())
        header = {"alg": "RS256", "typ": "JWT", "kid": KEY_ID}
        claims = {"sub": subject, "aud": audience, "iss": self.issuer, "iat": now + min(lifetime_s, 0) - 60,
                  "exp": now + lifetime_s, "scope": "kafka"}
        signing_input = f"{_b64(json.dumps(header).encode())}.{_b64(json.dumps(claims).encode())}"
        signature = _openssl("dgst", "-sha256", "-sign", f"{key}.key", cwd=self.directory,
                             data=signing_input.encode())
        return f"{signing_input}.{_b64(signature)}"

    def start(self) -> "Provider":
        provider = self
        jwks = json.dumps(self.jwks()).encode()

        class Handler(BaseHTTPRequestHandler):
            def _send(self, status: int, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):  # noqa: N802 - http.server's name
                if self.path == "/jwks.json":
                    self._send(200, jwks)
                else:
                    self._send(404, b"{}")

            def do_POST(self):  # noqa: N802 - http.server's name
                length = min(int(self.headers.get("Content-Length") or 0), 65536)
                form = parse_qs(self.rfile.read(length).decode())
                client = (form.get("client_id") or [""])[0] or self._basic_client()
                if self.path != "/token" or not client:
                    self._send(400, b'{"error":"invalid_request"}')
                    return
                key = "intruder" if client == "intruder" else "signer"
                token = provider.token(client, key=key)
                self._send(200, json.dumps({"access_token": token, "token_type": "Bearer",
                                            "expires_in": TOKEN_LIFETIME_S}).encode())

            def _basic_client(self) -> str:
                auth = self.headers.get("Authorization") or ""
                if not auth.startswith("Basic "):
                    return ""
                try:
                    return base64.b64decode(auth[6:]).decode().split(":", 1)[0]
                except ValueError:
                    return ""

            def log_message(self, *args):  # quiet: the suite prints its own matrix
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.certs["server.pem"], self.certs["server.key"])
        server.socket = context.wrap_socket(server.socket, server_side=True)
        self.server = server
        threading.Thread(target=server.serve_forever, name="oidc", daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
