"""Secrets of a model connection: redacting them (fragments too) and keeping them out of URLs.

A key can travel back to a person in many shapes: echoed whole by a server, cut in the middle
by a server or by our own shortening of a long message, inside ``base_url``
(``https://user:key@host/v1``, ``...?key=...``), or as the ``Basic base64(user:key)`` header
a server repeats. ``redact()`` replaces every occurrence of a secret and every run of 8 or more
characters that begins like one; ``split_url_credentials()`` moves credentials out of a URL
into request headers and query parameters that are never shown; ``RedactingLogFilter`` hides
credential query values in the URLs that httpx logs at INFO level.
"""

from __future__ import annotations

import base64
import logging
import re
from collections.abc import Iterable
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

from nb_hitl._secret_names import (
    MIN_FRAGMENT,
    MIN_SECRET,
    SECRET_NAME_WORDS,
    find_secret,
    is_secret_name,
    secret_spans,
)

__all__ = [
    "MIN_FRAGMENT",
    "RedactingLogFilter",
    "UrlCredentials",
    "find_secret",
    "install_log_redaction",
    "install_secret_redaction",
    "is_credential_param",
    "is_secret_name",
    "redact",
    "redact_urls",
    "split_url_credentials",
]

MASK = "***"

_SECRET_NAME_WORDS = SECRET_NAME_WORDS
_CREDENTIAL_NAMES = frozenset({"sig", "signature", "pwd", "code"})


def redact(text: str, secrets: str | Iterable[str | None] | None) -> str:
    """``text`` with every secret, and every fragment of 8+ leading characters, as ``***``.

    Redact before shortening a text: a cut through a key would otherwise leave its prefix.
    """
    if secrets is None:
        return text
    values = [secrets] if isinstance(secrets, str) else [s for s in secrets if s]
    # Longest first, so a secret containing another is replaced whole.
    for secret in sorted(set(values), key=len, reverse=True):
        spans = secret_spans(text, secret)
        if spans:
            out, last = [], 0
            for start, end in spans:
                out.append(text[last:start])
                out.append(MASK)
                last = end
            out.append(text[last:])
            text = "".join(out)
    return text


def is_credential_param(name: str) -> bool:
    """Whether a URL query parameter name looks like it carries a credential."""
    return name.lower() in _CREDENTIAL_NAMES or is_secret_name(name)


class UrlCredentials:
    """Credentials taken out of a ``base_url``: sent with each request, never shown.

    ``repr()`` hides the values, so ``vars(model)`` and tracebacks show nothing secret.
    """

    __slots__ = ("_headers", "_query", "_secrets")

    def __init__(
        self, headers: dict[str, str], query: dict[str, str], secrets: tuple[str, ...]
    ) -> None:
        self._headers = headers
        self._query = query
        self._secrets = secrets

    def headers(self) -> dict[str, str]:
        """Headers to send (``Authorization: Basic ...`` for a ``user:key@host`` URL)."""
        return dict(self._headers)

    def query(self) -> dict[str, str]:
        """Query parameters to send (``key=...`` taken from the URL)."""
        return dict(self._query)

    def secrets(self) -> tuple[str, ...]:
        """Every value that must be redacted: the credentials and their Basic encoding."""
        return self._secrets

    def __bool__(self) -> bool:
        return bool(self._headers or self._query)

    def __repr__(self) -> str:
        parts = [*(f"{h} header" for h in self._headers), *(f"{q}=" for q in self._query)]
        return f"UrlCredentials({', '.join(parts) or 'none'}; values hidden)"


def split_url_credentials(url: str) -> tuple[str, UrlCredentials]:
    """Split ``url`` into a URL safe to show and the credentials it carried.

    ``user:key@host`` becomes an ``Authorization: Basic`` header (what httpx would have sent
    for it); query parameters named like credentials (``key``, ``api_key``, ``token``,
    ``sig``...) become query parameters added to each request.
    """
    parts = urlsplit(url)
    headers: dict[str, str] = {}
    query: dict[str, str] = {}
    secrets: list[str] = []
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, hostport = netloc.rpartition("@")
        user, _, password = userinfo.partition(":")
        user, password = unquote(user), unquote(password)
        basic = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
        headers["Authorization"] = f"Basic {basic}"
        secrets += [v for v in (user, password, basic) if len(v) >= MIN_SECRET]
        netloc = hostport
    kept = []
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if is_credential_param(name) and value:
            query[name] = value
            if len(value) >= MIN_SECRET:
                secrets.append(value)
                encoded = quote(value, safe="")
                if encoded != value:
                    secrets.append(encoded)
        else:
            kept.append((name, value))
    clean = urlunsplit(parts._replace(netloc=netloc, query=urlencode(kept)))
    return clean, UrlCredentials(headers, query, tuple(secrets))


_USERINFO = re.compile(r"(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*://)[^/\s@?#]+@")
_QUERY_PARAM = re.compile(r"(?P<lead>[?&])(?P<name>[^=&#\s\"']+)=(?P<value>[^&#\s\"']*)")


def redact_urls(text: str) -> str:
    """Hide the ``user:password@`` part and credential query values of every URL in ``text``."""
    text = _USERINFO.sub(lambda m: f"{m['scheme']}{MASK}@", text)

    def param(m: re.Match[str]) -> str:
        if is_credential_param(unquote(m["name"])) and m["value"]:
            return f"{m['lead']}{m['name']}={MASK}"
        return m[0]

    return _QUERY_PARAM.sub(param, text)


class RedactingLogFilter(logging.Filter):
    """Rewrites a log record whose text shows a URL credential (httpx logs each request URL)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            text = record.getMessage()
        except Exception:  # a malformed record is the logging module's business
            return True
        safe = redact_urls(text)
        if safe != text:
            record.msg, record.args = safe, ()
        return True


_FILTER = RedactingLogFilter()
_LOGGERS = ("httpx", "httpx2", "openai", "openai._base_client")


def install_log_redaction() -> None:
    """Attach the redacting filter to the loggers that print request URLs (idempotent)."""
    for name in _LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)


class SecretLogFilter(logging.Filter):
    """Redacts given secrets (and their fragments) from a logger's records: a third-party SDK
    that logs a server's error message would otherwise log a key the server echoed."""

    def __init__(self) -> None:
        super().__init__()
        self.secrets: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.secrets:
            return True
        try:
            text = record.getMessage()
        except Exception:  # a malformed record is the logging module's business
            return True
        safe = redact(text, self.secrets)
        if record.exc_info and record.exc_info[1] is not None:
            exc_text = logging.Formatter().formatException(record.exc_info)
            record.exc_text, record.exc_info = redact(exc_text, self.secrets), None
        if safe != text:
            record.msg, record.args = safe, ()
        return True

    def __repr__(self) -> str:
        return f"SecretLogFilter({len(self.secrets)} secret(s); values hidden)"


_SECRET_FILTERS: dict[str, SecretLogFilter] = {}


def install_secret_redaction(logger_name: str, secrets: Iterable[str]) -> None:
    """Redact ``secrets`` from everything the ``logger_name`` logger (and its children) logs."""
    values = {s for s in secrets if s and len(s) >= MIN_SECRET}
    if not values:
        return
    log_filter = _SECRET_FILTERS.get(logger_name)
    if log_filter is None:
        log_filter = _SECRET_FILTERS[logger_name] = SecretLogFilter()
        logger = logging.getLogger(logger_name)
        logger.addFilter(log_filter)
        for handler in logger.handlers:
            handler.addFilter(log_filter)
    log_filter.secrets |= values
