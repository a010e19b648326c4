"""Colours by meaning, the same on every chart and every test: a code's colour depends on the code alone.

HTTP: 2xx greens, 3xx blues, 4xx oranges, 5xx reds, 0 (no response: a net error) grey. Net codes: 0 (OK) green;
each error its own hue outside those four families (purples, browns, pinks, teals), so a timeout never reads as
a 5xx. Within a family the common codes have fixed shades; any other code gets a shade from its number.
"""

from __future__ import annotations

HTTP_FAMILIES: dict[int, tuple[str, ...]] = {
    2: ("#2ca02c", "#1a7f37", "#74c476", "#0b5d1e", "#a1d99b"),
    3: ("#1f77b4", "#6baed6", "#08519c", "#3182bd", "#9ecae1"),
    4: ("#ff7f0e", "#fdae6b", "#d95f02", "#f16913", "#fdd0a2", "#a63603"),
    5: ("#d62728", "#a50f15", "#fb6a4a", "#cb181d", "#fc9272", "#67000d"),
}
# Fixed shades of the codes people meet most, so two of them in one family never share a shade.
HTTP_SHADE: dict[int, int] = {
    200: 0, 201: 1, 204: 2, 206: 3,
    301: 0, 302: 1, 304: 2, 307: 3,
    404: 0, 401: 1, 400: 2, 403: 3, 409: 4, 429: 5,
    500: 0, 503: 1, 502: 2, 501: 4, 504: 5,
}  # fmt: skip
NO_RESPONSE_COLOR = "#7f7f7f"
OTHER_HTTP_COLOR = "#8c6d31"

NET_OK_COLOR = "#2ca02c"
NET_COLORS: dict[int, str] = {
    110: "#9467bd",  # connection timed out
    111: "#8c564b",  # connection refused
    104: "#e377c2",  # connection reset by peer
    32: "#17becf",  # broken pipe
    99: "#bcbd22",  # cannot assign requested address (the tank ran out of ports)
    314: "#5e3c99",  # phantom's timeout
    777: "#7f7f7f",  # discarded by the generator
    999: "#393b79",  # pandora's unknown error
}
NET_OTHER_HUES: tuple[str, ...] = ("#6a3d9a", "#b15928", "#cab2d6", "#1b9e77", "#e7298a", "#66a61e", "#7570b3")


def code_color(kind: str, code: int) -> str:
    """The colour of an HTTP (`kind="http"`) or net (`kind="net"`) code."""
    code = int(code)
    if kind == "net":
        if code == 0:
            return NET_OK_COLOR
        return NET_COLORS.get(code, NET_OTHER_HUES[code % len(NET_OTHER_HUES)])
    if code == 0:
        return NO_RESPONSE_COLOR
    family = HTTP_FAMILIES.get(code // 100)
    if family is None:
        return OTHER_HTTP_COLOR
    return family[HTTP_SHADE.get(code, code % len(family)) % len(family)]
