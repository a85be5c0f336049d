"""Security headers and cookies, and HTTPS behind a TLS-terminating proxy (PARLEY_BEHIND_TLS)."""

from __future__ import annotations

from config.env import env_bool, env_int

# SecurityMiddleware sends nosniff and the referrer policy on every response; core.middleware adds the
# Content-Security-Policy of HTML pages. Same-origin keeps the Referer the widget's origin check reads
# on the demo page's own GETs (api.access), and sends nothing to other sites.
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
# PARLEY_BEHIND_TLS: Parley is served over HTTPS by a proxy that terminates TLS and sets
# X-Forwarded-Proto (it must overwrite a client's own). Then cookies are HTTPS-only, plain HTTP is
# redirected (the health check excepted: load balancers probe it on the private address) and HSTS
# tells browsers to never use HTTP again.
PARLEY_BEHIND_TLS = env_bool("PARLEY_BEHIND_TLS", False)
if PARLEY_BEHIND_TLS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    # Preloading is a request to browser vendors, hard to undo: opt in once every subdomain has TLS.
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
