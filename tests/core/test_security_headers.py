"""Security headers and the production settings: the CSP of pages and JSON, nosniff, the referrer
policy, HSTS and secure cookies behind TLS, and `manage.py check --deploy` clean under the
production settings docs/configuration.md documents."""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from tests.support.processes import child_database_url

ROOT = Path(__file__).resolve().parents[2]
_ENV_LINE = re.compile(r"^([A-Z][A-Z0-9_]*)=(\S*)")


def documented_production_env() -> dict[str, str]:
    """The variables of the documented production block (the fenced block after its marker)."""
    page = (ROOT / "docs/configuration.md").read_text()
    block = page.split("<!-- production-settings -->", 1)[1].split("```", 2)[1]
    found: dict[str, str] = {}
    for line in block.splitlines():
        if match := _ENV_LINE.match(line.strip()):
            found[match[1]] = match[2]
    assert {"SECRET_KEY", "DEBUG", "ALLOWED_HOSTS", "PARLEY_BEHIND_TLS"} <= found.keys()
    return found


def production_env() -> dict[str, str]:
    env = {**os.environ, **documented_production_env()}
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)  # the browser tests' setting, never a deployment's
    env["SECRET_KEY"] = secrets.token_urlsafe(50)  # the page shows how to make one
    # The running test services: the child must neither start nor stop embedded ones.
    env["DATABASE_URL"] = child_database_url()
    env["REDIS_URL"] = settings.REDIS_URL
    return env


def test_the_deploy_check_is_clean_under_the_documented_production_settings() -> None:
    env = production_env()
    argv = [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"]
    result = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout
    assert "WARNINGS" not in result.stderr

    # The same check without TLS is not clean: the variable is what makes it so.
    del env["PARLEY_BEHIND_TLS"]
    plain = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert plain.returncode != 0 and "security.W004" in plain.stderr  # no HSTS


@pytest.mark.django_db
def test_pages_get_a_strict_csp_nosniff_and_a_referrer_policy() -> None:
    client = Client()
    page = client.get("/admin/login/")
    assert page.status_code == 200
    policy = page["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["script-src"] == "'self'"  # no inline script at all on the login page
    assert directives["frame-ancestors"] == "'none'" and directives["object-src"] == "'none'"
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert page["X-Content-Type-Options"] == "nosniff"
    assert page["Referrer-Policy"] == "same-origin"
    assert page["X-Frame-Options"] == "DENY"
    assert "Strict-Transport-Security" not in page  # plain HTTP here: HSTS only behind TLS

    # JSON is data: it may load nothing if a browser ever renders it.
    api = client.get("/api/v1/me")
    assert api.status_code == 401
    assert api["Content-Security-Policy"] == "default-src 'none'; frame-ancestors 'none'"
    assert api["X-Content-Type-Options"] == "nosniff"


@pytest.mark.django_db
def test_an_inline_style_is_admitted_by_the_requests_own_nonce(admin_client: Client) -> None:
    from prompts.services.demo import demo_bot_ensure

    bot = demo_bot_ensure()
    first = admin_client.get(f"/admin/bots/bot/{bot.pk}/preview/")
    second = admin_client.get(f"/admin/bots/bot/{bot.pk}/preview/")
    nonces = []
    for response in (first, second):
        assert response.status_code == 200
        nonce = re.search(r'<style nonce="([^"]+)"', response.content.decode())
        assert nonce is not None
        assert f"style-src 'self' 'nonce-{nonce[1]}'" in response["Content-Security-Policy"]
        nonces.append(nonce[1])
    assert nonces[0] != nonces[1]  # one per response


_HEADERS_SCRIPT = """
import json, django
django.setup()
from django.test import Client
client = Client()
plain = client.get("/admin/login/")
tls = client.get("/admin/login/", headers={"X-Forwarded-Proto": "https"})
health = client.get("/healthz")
print(json.dumps({
    "plain": [plain.status_code, plain.get("Location", "")],
    "tls": [tls.status_code, tls.get("Strict-Transport-Security", "")],
    "csrf_secure": bool(tls.cookies["csrftoken"]["secure"]) if "csrftoken" in tls.cookies else None,
    "health": health.status_code,
}))
"""


def test_behind_tls_http_is_redirected_hsts_is_sent_and_cookies_are_secure() -> None:
    env = {
        **production_env(),
        "ALLOWED_HOSTS": "testserver",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    result = subprocess.run(
        [sys.executable, "-c", _HEADERS_SCRIPT],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["plain"] == [301, "https://testserver/admin/login/"]
    assert seen["tls"][0] == 200
    assert seen["tls"][1] == "max-age=31536000; includeSubDomains; preload"
    assert seen["csrf_secure"] is True
    assert seen["health"] != 301  # load balancers probe /healthz over plain HTTP
