"""Request checks every view relies on, and the Content-Security-Policy header of every answer.

`RequestShapeMiddleware` refuses, before any view runs, what no view can handle:
- a NUL character in the path, or in the query outside the tank protocol (`/api/v1/components/a%00b/trend`):
  PostgreSQL cannot compare text holding one, so it would fail as a 500 deep in a query; a 400 here covers every
  path parameter at once;
- a body sent without a Content-Length (`Transfer-Encoding: chunked`): Django reads such a body as empty, so a
  view would act on nothing (a test created without its fields). 411, as the phout upload already answers.

`ContentSecurityPolicyMiddleware` sets a policy under which the SPA (scripts and styles from /static/, Plotly's
injected styles), the admin site and the API docs (Swagger UI's files from its CDN, on /api/docs/ only) work, and
nothing else: no inline script anywhere, no other origin, no framing.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse

from backend.core.parsers import text_problem

SWAGGER_CDN = "https://cdn.jsdelivr.net"


def _policy(*, extra_origin: str = "") -> str:
    extra = f" {extra_origin}" if extra_origin else ""
    directives = [
        "default-src 'self'",
        f"script-src 'self'{extra}",
        # Plotly adds <style> elements and style attributes as it draws; React sets style attributes too.
        f"style-src 'self' 'unsafe-inline'{extra}",
        # The favicon and Plotly's "download as PNG" are data: and blob: URLs.
        f"img-src 'self' data: blob:{extra}",
        "font-src 'self' data:",
        "connect-src 'self'",
        # ReDoc runs its search in a worker made from a blob: URL.
        "worker-src 'self' blob:",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
    return "; ".join(directives)


POLICY = _policy()
DOCS_POLICY = _policy(extra_origin=SWAGGER_CDN)


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = DOCS_POLICY if request.path.startswith("/api/docs/") else POLICY
        return response


class RequestShapeMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        problem = text_problem(request.path)
        if problem:
            return JsonResponse({"error": f"path: {problem}"}, status=400)
        # The tank protocol answers its own query's faults as the tank expects them (a bad api_token is a 401/403,
        # which stops the tank's retries): its paths are left to its views.
        tank_protocol = request.path.startswith("/api/") and not request.path.startswith("/api/v1/")
        for key, values in [] if tank_protocol else request.GET.lists():
            for value in [key, *values]:
                problem = text_problem(value)
                if problem:
                    return JsonResponse({"error": f"query parameter {key!r}: {problem}"}, status=400)
        if "HTTP_TRANSFER_ENCODING" in request.META and not request.META.get("CONTENT_LENGTH"):
            return JsonResponse(
                {"error": "Content-Length is required (a body sent in chunks is not read here)"}, status=411
            )
        return self.get_response(request)
