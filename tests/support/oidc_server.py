"""Start the test OpenID Connect provider (tests/support/oidc_provider) as a process of its own.

A fresh sqlite file and RSA key per run, a free port, `runserver` without the reloader; the provider's
discovery document gives Parley its endpoints, as an operator copies them (docs/sso.md).
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.support.processes import free_port, wait_for

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = "tests.support.oidc_provider.settings"


@dataclass(frozen=True)
class OidcProvider:
    base_url: str
    issuer: str
    discovery: dict[str, Any]
    process: subprocess.Popen[bytes]
    log: Path


def _rsa_key_pem() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()


def oidc_provider_start(*, workdir: Path, timeout: float = 60) -> OidcProvider:
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    issuer = f"{base_url}/o"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")},
        "DJANGO_SETTINGS_MODULE": SETTINGS,
        "OIDC_PROVIDER_DB": str(workdir / "provider.sqlite3"),
        "OIDC_PROVIDER_ISSUER": issuer,
        "OIDC_PROVIDER_RSA_KEY": _rsa_key_pem(),
    }
    subprocess.run(
        [sys.executable, "-m", "tests.support.oidc_provider.bootstrap"],
        env=env,
        cwd=ROOT,
        check=True,
        timeout=timeout,
    )
    log = workdir / "provider.log"
    with log.open("ab") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "django", "runserver", f"127.0.0.1:{port}", "--noreload"],
            env=env,
            cwd=ROOT,
            stdout=output,
            stderr=output,
            start_new_session=True,
        )

    def serving() -> bool:
        assert process.poll() is None, f"the test provider exited; see {log}"
        try:
            return httpx.get(f"{issuer}/.well-known/openid-configuration").status_code == 200
        except httpx.TransportError:
            return False

    wait_for(serving, timeout=timeout, what="the test OIDC provider")
    discovery = httpx.get(f"{issuer}/.well-known/openid-configuration").json()
    return OidcProvider(
        base_url=base_url, issuer=issuer, discovery=discovery, process=process, log=log
    )
