"""The security suite's brokers: one per mechanism group, each started from the same
server.properties keys for Kafka 4.4.0 and for Strand (Kafka's names), on free loopback ports.

Every group keeps a PLAINTEXT listener (inter-broker, and the readiness probe) and a PLAINTEXT
CONTROLLER listener; the secured listeners are what the clients test:

  tls    SSL    (ssl.keystore.type=PEM, no client authentication)
         MTLS   (an SSL listener of another name: PKCS12 keystore and truststore,
                 listener.name.mtls.ssl.client.auth=required)
  sasl   SASL_SSL        SCRAM-SHA-512 and SCRAM-SHA-256, users seeded by `storage format --add-scram`
         REAUTH          SASL_SSL SCRAM-SHA-512 whose sessions last 2 s (connections.max.reauth.ms):
                         clients must re-authenticate (KIP-368) or be disconnected
         SASL_PLAINTEXT  PLAIN, users in listener.name.sasl_plaintext.plain.sasl.jaas.config
  oauth  SASL_PLAINTEXT  OAUTHBEARER with Kafka's unsecured (alg none) token validator
  acl    SASL_PLAINTEXT  PLAIN users admin, alice, bob; StandardAuthorizer, super.users
                         User:ANONYMOUS;User:admin (the ACL matrix)
  aclopen                the same with allow.everyone.if.no.acl.found=true
  jwks   SASL_PLAINTEXT  OAUTHBEARER with Kafka's KIP-768 validator: RS256 tokens checked against
                         the JWK set the runner's local HTTPS provider serves (oidc.py), with the
                         expected audience and issuer

A group whose broker does not start records why instead of its addresses, so that the tests of
that group fail with the broker's own message and the other groups still run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from compat_broker import (NODE_ID, REPO, STOP_GRACE_S, TAIL_LINES, _accepts, _cluster_id,  # noqa: E402
                           _free_port, _from_repo, _kill_with_parent, java_command, metadata_lists_a_broker)

USERS = {
    "scram": ("alice", "alice-secret"),
    "plain": ("alice", "alice-plain-secret"),
    "oauth": ("alice", None),
}

# The REAUTH listener's connections.max.reauth.ms.
REAUTH_MS = 2000


def _group_properties(group: str, ports: dict[str, int], certs: dict[str, str]) -> dict[str, str]:
    password = certs["password"]
    if group == "tls":
        return {
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SSL:SSL,MTLS:SSL",
            "ssl.keystore.type": "PEM",
            "ssl.keystore.location": certs["server-keystore.pem"],
            "ssl.truststore.type": "PEM",
            "ssl.truststore.location": certs["ca.pem"],
            "listener.name.mtls.ssl.keystore.type": "PKCS12",
            "listener.name.mtls.ssl.keystore.location": certs["server.p12"],
            "listener.name.mtls.ssl.keystore.password": password,
            "listener.name.mtls.ssl.key.password": password,
            "listener.name.mtls.ssl.truststore.type": "PKCS12",
            "listener.name.mtls.ssl.truststore.location": certs["truststore.p12"],
            "listener.name.mtls.ssl.truststore.password": password,
            "listener.name.mtls.ssl.client.auth": "required",
        }
    if group == "sasl":
        user, plain_password = USERS["plain"]
        return {
            "listener.security.protocol.map":
                "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_SSL:SASL_SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,REAUTH:SASL_SSL",
            "ssl.keystore.type": "PEM",
            "ssl.keystore.location": certs["server-keystore.pem"],
            "sasl.enabled.mechanisms": "SCRAM-SHA-512,SCRAM-SHA-256,PLAIN",
            "listener.name.sasl_ssl.sasl.enabled.mechanisms": "SCRAM-SHA-512,SCRAM-SHA-256",
            "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config":
                "org.apache.kafka.common.security.scram.ScramLoginModule required;",
            "listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config":
                "org.apache.kafka.common.security.scram.ScramLoginModule required;",
            "listener.name.sasl_plaintext.sasl.enabled.mechanisms": "PLAIN",
            # A listener of its own, so that the other cases' connections never expire.
            "listener.name.reauth.sasl.enabled.mechanisms": "SCRAM-SHA-512",
            "listener.name.reauth.scram-sha-512.sasl.jaas.config":
                "org.apache.kafka.common.security.scram.ScramLoginModule required;",
            "listener.name.reauth.connections.max.reauth.ms": str(REAUTH_MS),
            "listener.name.sasl_plaintext.plain.sasl.jaas.config":
                "org.apache.kafka.common.security.plain.PlainLoginModule required "
                f'user_{user}="{plain_password}" user_bob="bob-plain-secret";',
            # Delegation tokens (KIP-48): enabled by the secret key (java/DelegationTokenMatrix.java).
            "delegation.token.secret.key": "compat-token-secret",
        }
    if group == "oauth":
        return {
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT",
            "sasl.enabled.mechanisms": "OAUTHBEARER",
            "listener.name.sasl_plaintext.sasl.enabled.mechanisms": "OAUTHBEARER",
            # No validator class and no JWKS URL: Kafka's unsecured validator (alg none, claim "sub").
            "listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config":
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required "
                'unsecuredLoginStringClaim_sub="broker";',
        }
    if group in ("acl", "aclopen"):
        users = " ".join(f'user_{name}="{password}"' for name, password in ACL_USERS.items())
        return {
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT",
            "sasl.enabled.mechanisms": "PLAIN",
            "listener.name.sasl_plaintext.sasl.enabled.mechanisms": "PLAIN",
            "listener.name.sasl_plaintext.plain.sasl.jaas.config":
                f"org.apache.kafka.common.security.plain.PlainLoginModule required {users};",
            "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
            # PLAINTEXT (inter-broker, controller, the readiness probe) is ANONYMOUS.
            "super.users": "User:ANONYMOUS;User:admin",
            "allow.everyone.if.no.acl.found": "true" if group == "aclopen" else "false",
        }
    if group == "jwks":
        prefix = "listener.name.sasl_plaintext.oauthbearer."
        return {
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT",
            "sasl.enabled.mechanisms": "OAUTHBEARER",
            "listener.name.sasl_plaintext.sasl.enabled.mechanisms": "OAUTHBEARER",
            # The JWK set is fetched over HTTPS, trusting the test CA (the JAAS options Kafka's
            # validator reads for its HTTPS client). Kafka's broker also logs in at start-up with
            # its default (unsecured) login handler, which needs a subject.
            f"{prefix}sasl.jaas.config":
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required "
                f'ssl.truststore.location="{certs["ca.pem"]}" ssl.truststore.type="PEM" '
                'unsecuredLoginStringClaim_sub="broker";',
            f"{prefix}sasl.server.callback.handler.class":
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler",
            f"{prefix}sasl.oauthbearer.jwks.endpoint.url": certs["oidc.jwks_url"],
            f"{prefix}sasl.oauthbearer.expected.audience": certs["oidc.audience"],
            f"{prefix}sasl.oauthbearer.expected.issuer": certs["oidc.issuer"],
        }
    raise ValueError(group)


# The ACL matrix's SASL PLAIN users (acl and aclopen groups): admin is a super user, alice is
# granted what the matrix allows, bob nothing.
ACL_USERS = {"admin": "admin-secret", "alice": "alice-secret", "bob": "bob-secret"}

GROUP_LISTENERS = {"tls": ["SSL", "MTLS"], "sasl": ["SASL_SSL", "SASL_PLAINTEXT", "REAUTH"], "oauth": ["SASL_PLAINTEXT"],
                   "acl": ["SASL_PLAINTEXT"], "aclopen": ["SASL_PLAINTEXT"], "jwks": ["SASL_PLAINTEXT"]}


def _jvm_options(group: str, certs: dict[str, str]) -> list[str]:
    """Kafka 4 fetches only the URLs this system property allows (KIP-1082's allow-list)."""
    if group != "jwks":
        return []
    return [f"-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls={certs['oidc.jwks_url']}"]


def _storage_extra(group: str) -> list[str]:
    if group != "sasl":
        return []
    user, password = USERS["scram"]
    return ["--add-scram", f"SCRAM-SHA-512=[name={user},password={password}]",
            "--add-scram", f"SCRAM-SHA-256=[name={user},password={password}]"]


def _last_line(text: str) -> str:
    """The last line of text that says `error`, or else its last line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if line.lower().startswith("error")]
    return (errors or lines or [""])[-1]


@dataclass
class GroupBroker:
    group: str
    kind: str
    run_dir: Path
    ports: dict[str, int] = field(default_factory=dict)
    command: list[str] = field(default_factory=list)
    process: subprocess.Popen | None = None
    error: str | None = None
    error_line: str | None = None  # the broker's last line of stderr (or the format tool's output)
    format_command: list[str] = field(default_factory=list)
    last_error: Exception | None = None

    def addresses(self) -> dict[str, str]:
        return {name: f"127.0.0.1:{port}" for name, port in self.ports.items() if name != "CONTROLLER"}

    def _properties(self, certs: dict[str, str]) -> Path:
        taken: set[int] = set()
        for name in ["PLAINTEXT", "CONTROLLER", *GROUP_LISTENERS[self.group]]:
            port = _free_port()
            while port in taken:
                port = _free_port()
            taken.add(port)
            self.ports[name] = port
        data_dir = self.run_dir / "data"
        data_dir.mkdir()
        props = {}
        for line in (REPO / "compat/broker/kafka-server.properties").read_text().splitlines():
            if line and not line.startswith("#"):
                key, _, value = line.partition("=")
                props[key] = value
        client_listeners = ",".join(f"{n}://127.0.0.1:{self.ports[n]}" for n in ["PLAINTEXT", *GROUP_LISTENERS[self.group]])
        props.update({
            "node.id": str(NODE_ID),
            "listeners": f"{client_listeners},CONTROLLER://127.0.0.1:{self.ports['CONTROLLER']}",
            "advertised.listeners": client_listeners,
            "controller.quorum.voters": f"{NODE_ID}@127.0.0.1:{self.ports['CONTROLLER']}",
            "log.dirs": str(data_dir),
        })
        props.update(_group_properties(self.group, self.ports, certs))
        path = self.run_dir / "server.properties"
        path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
        return path

    def prepare(self, certs: dict[str, str]) -> subprocess.Popen | None:
        """Writes server.properties and starts formatting the storage (returned, to be awaited)."""
        try:
            properties = self._properties(certs)
            if self.kind == "kafka":
                fmt = java_command(short_lived=True) + ["kafka.tools.StorageTool"]
                self.command = java_command() + _jvm_options(self.group, certs) + ["kafka.Kafka", str(properties)]
            else:
                binary = str(_from_repo(os.environ.get("STRAND_BIN", "target/release/strand")))
                fmt = [binary, "storage"]
                self.command = [binary, "server", str(properties)]
            fmt += ["format", "-t", _cluster_id(), "-c", str(properties), *_storage_extra(self.group)]
            self.format_command = fmt
            return subprocess.Popen(fmt, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    text=True)
        except Exception as e:  # noqa: BLE001 - recorded for the group's tests
            self._fail(f"{type(e).__name__}: {e}")
            return None

    def launch(self, formatting: subprocess.Popen | None) -> None:
        """Awaits the format, then starts the broker. Call from the main thread: the broker gets a
        parent-death signal, which Linux sends when the thread that started it ends."""
        if self.error or formatting is None:
            return
        output, _ = formatting.communicate(timeout=90)
        if formatting.returncode != 0:
            self._fail(f"formatting storage failed (exit {formatting.returncode})\n"
                       f"command: {' '.join(self.format_command)}\n{output}", _last_line(output))
            return
        try:
            with open(self.run_dir / "broker.stdout", "wb") as out, open(self.run_dir / "broker.stderr", "wb") as err:
                self.process = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                                preexec_fn=_kill_with_parent)
        except OSError as e:
            self._fail(f"cannot start {self.command[0]}: {e}")

    def _fail(self, error: str, line: str | None = None) -> None:
        self.error = error
        self.error_line = line or self.error_line or _last_line(error)

    def poll_ready(self) -> bool:
        """True once ready or failed (self.error set); False while still starting."""
        if self.error or self.process is None:
            return True
        if self.process.poll() is not None:
            self._fail(self._failure(f"exited with status {self.process.returncode} before it was ready"))
            return True
        try:
            # Client listeners only: a lone Strand voter binds no CONTROLLER listener.
            closed = [n for n, p in self.ports.items() if n != "CONTROLLER" and not _accepts(p)]
            if closed:
                raise RuntimeError(f"listeners {closed} do not accept connections")
            metadata_lists_a_broker(f"127.0.0.1:{self.ports['PLAINTEXT']}")
            return True
        except Exception as e:  # noqa: BLE001 - not ready yet
            self.last_error = e
            return False

    def _failure(self, what: str) -> str:
        def tail(name):
            try:
                return "".join((self.run_dir / name).read_text(errors="replace").splitlines(keepends=True)[-TAIL_LINES:])
            except OSError as e:
                return f"(unreadable: {e})\n"
        self.error_line = _last_line(tail("broker.stderr")) or _last_line(tail("broker.stdout"))
        return (f"{self.kind} broker for group {self.group} {what}\ncommand: {' '.join(self.command)}\n"
                f"--- stderr ---\n{tail('broker.stderr')}--- stdout ---\n{tail('broker.stdout')}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_all(kind: str, certs: dict[str, str], base: Path) -> list[GroupBroker]:
    """Starts every group's broker at once and waits until each is ready or has failed."""
    timeout_s = float(os.environ.get("STRAND_COMPAT_START_TIMEOUT_S") or (20 if kind == "strand" else 120))
    brokers = [GroupBroker(g, kind, Path(tempfile.mkdtemp(prefix=f"broker-{g}-", dir=base))) for g in GROUP_LISTENERS]
    formats = [b.prepare(certs) for b in brokers]
    for b, formatting in zip(brokers, formats):
        b.launch(formatting)
    deadline = time.monotonic() + timeout_s
    waiting = list(brokers)
    while waiting:
        waiting = [b for b in waiting if not b.poll_ready()]
        if waiting and time.monotonic() > deadline:
            for b in waiting:
                b._fail(b._failure(f"was not ready after {timeout_s:g} s ({b.last_error})"))
            break
        time.sleep(0.2)
    return brokers
