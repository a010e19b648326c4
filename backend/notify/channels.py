"""What each kind of target receives, and sending it: one HTTP POST per delivery.

Slack, Mattermost and Rocket.Chat share the incoming-webhook payload `{"text": ...}`; Teams' incoming webhook
(Office 365 connector) takes a MessageCard, its Workflows webhook a message with an Adaptive Card;
Telegram the Bot API's sendMessage (its base URL is a setting, so tests point it at a local receiver); the generic
webhook gets the message as JSON with an HMAC-SHA256 signature of the body in `X-Tankodrom-Signature`. The report
link stands on a line of its own so chats unfurl it. Every POST goes through the egress policy
(backend/core/egress.py): public addresses only unless allowed, no redirects, a capped answer.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings

from backend.core import egress
from backend.notify.models import Target, TargetKind
from backend.notify.secrets import decrypt

SIGNATURE_HEADER = "X-Tankodrom-Signature"
# The addresses a target takes; the OpenAPI schema gives the same patterns (backend/notify/serializers.py). ASCII
# digits only (`\d` would take any script's), a host of URL characters and a port up to 65535.
TELEGRAM_TOKEN = re.compile(r"^[0-9]{3,20}:[A-Za-z0-9_-]{20,100}$")
TELEGRAM_CHAT = re.compile(r"^(-?[0-9]{1,20}|@[A-Za-z0-9_]{4,64})$")
PORT = r"(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4})"
TARGET_URL = re.compile(rf"^https?://[A-Za-z0-9._~%-]+(:{PORT})?([/?#][^\x00]*)?$")
MAX_TEXT = 3500  # Telegram's limit is 4096; chats cut long messages anyway


class DeliveryError(Exception):
    def __init__(self, message: str, *, retryable: bool, status_code: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable
        self.status_code = status_code


class AddressError(ValueError):
    """A target's address that cannot be used; the message names the field."""


HINT_HOST_CHARS = 200


def check_url(url: str) -> str:
    """The URL's hint (scheme, host, port); AddressError naming `url` when it is malformed or may not be called."""
    parts = urlsplit(url)
    if not TARGET_URL.match(url) or parts.scheme not in ("http", "https") or not parts.hostname:
        raise AddressError("url: an http(s) URL is expected (http(s)://host[:port][/path])")
    try:
        egress.check(url)
    except egress.Refused as exc:
        raise AddressError(
            f"url: {exc.reason} (the host must resolve to public addresses only; an administrator may allow "
            "hosts inside with TANKODROM_EGRESS_ALLOW)"
        ) from None
    host = parts.hostname
    if len(host) > HINT_HOST_CHARS:  # the hint is for telling targets apart, and its column holds 256
        host = host[:HINT_HOST_CHARS] + "…"
    return f"{parts.scheme}://{host}{':' + str(parts.port) if parts.port else ''}/…"


def check_telegram(token: str, chat_id: str) -> str:
    if not TELEGRAM_TOKEN.match(token):
        raise AddressError("token: a Telegram bot token is expected (digits:letters, from @BotFather)")
    if not TELEGRAM_CHAT.match(chat_id):
        raise AddressError("chat_id: a numeric chat id or an @channel name is expected")
    return f"bot {token.split(':', 1)[0]}"


def plain_text(message: dict[str, Any]) -> str:
    lines = [str(message["title"]), *(f"• {line}" for line in message.get("lines", []))]
    text = "\n".join(lines)
    if len(text) > MAX_TEXT:
        text = text[: MAX_TEXT - 1] + "…"
    return f"{text}\n{message['url']}"


@dataclass(frozen=True)
class Request:
    url: str
    body: bytes
    headers: dict[str, str]


def build_request(target: Target, message: dict[str, Any], delivery_id: int) -> Request:
    """The POST a target gets for a message (decrypting its address here, at the last moment)."""
    address = decrypt(target.address_encrypted)
    headers = {"Content-Type": "application/json", "User-Agent": "Tankodrom-notify/1"}
    payload: dict[str, Any]
    if target.kind == TargetKind.SLACK:
        payload = {"text": plain_text(message)}
        url = address
    elif target.kind == TargetKind.TEAMS:
        payload = {
            "@type": "MessageCard",
            "@context": "http://schema.org/extensions",
            "summary": message["title"],
            "title": message["title"],
            "text": "\n\n".join([*message.get("lines", []), message["url"]]),
            "potentialAction": [
                {"@type": "OpenUri", "name": "Open the report", "targets": [{"os": "default", "uri": message["url"]}]}
            ],
        }
        url = address
    elif target.kind == TargetKind.TEAMS_WORKFLOW:
        # Teams' Workflows ("when a webhook request is received") post the Adaptive Cards of a message's attachments.
        card = {
            "type": "AdaptiveCard",
            "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
            "version": "1.4",
            "body": [
                {"type": "TextBlock", "text": message["title"], "weight": "Bolder", "wrap": True},
                *({"type": "TextBlock", "text": line, "wrap": True} for line in message.get("lines", [])),
                {"type": "TextBlock", "text": message["url"], "wrap": True},
            ],
            "actions": [{"type": "Action.OpenUrl", "title": "Open the report", "url": message["url"]}],
        }
        payload = {
            "type": "message",
            "attachments": [
                {"contentType": "application/vnd.microsoft.card.adaptive", "contentUrl": None, "content": card}
            ],
        }
        url = address
    elif target.kind == TargetKind.TELEGRAM:
        base = str(settings.TANKODROM_TELEGRAM_API_URL).rstrip("/")
        payload = {"chat_id": target.chat_id, "text": plain_text(message)}
        url = f"{base}/bot{address}/sendMessage"
    else:
        payload = {**message, "delivery": delivery_id}
        url = address
    body = json.dumps(payload, ensure_ascii=False, sort_keys=True).encode()
    if target.kind == TargetKind.WEBHOOK:
        key = decrypt(target.secret_encrypted).encode()
        headers[SIGNATURE_HEADER] = "sha256=" + hmac.new(key, body, hashlib.sha256).hexdigest()
        headers["X-Tankodrom-Event"] = str(message.get("event", ""))
        headers["X-Tankodrom-Delivery"] = str(delivery_id)
    return Request(url, body, headers)


def send(request: Request) -> int:
    """POST it; the status code on 2xx, DeliveryError otherwise (retryable for no answer, 5xx, 408, 429).

    The error says a class only ("refused: address not allowed", "no answer within 10 s", "HTTP 503"), never the
    answer's body or reason phrase or how a connection failed: what a service inside answers must not come back to
    the user through the delivery log."""
    timeout_s = float(settings.TANKODROM_NOTIFY_TIMEOUT_S)
    try:
        answer = egress.post(request.url, request.body, request.headers, timeout_s=timeout_s)
    except egress.Refused as exc:
        raise DeliveryError(exc.reason, retryable=False) from None
    except egress.Failed:
        raise DeliveryError(f"no answer within {timeout_s:g} s", retryable=True) from None
    code = answer.status
    if 200 <= code < 300:
        return code
    if 300 <= code < 400:
        raise DeliveryError(f"HTTP {code} (redirects are not followed)", retryable=False, status_code=code)
    retryable = code >= 500 or code in (408, 429)
    raise DeliveryError(f"HTTP {code}", retryable=retryable, status_code=code)
