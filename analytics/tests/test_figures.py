"""The report's figures: colours by meaning, a legend and units everywhere, data text shown as text."""

from __future__ import annotations

from typing import Any

import numpy as np

from analytics.figures import codes_figure, distribution_figure, lines_figure, quantiles_figure
from analytics.figures_colors import code_color
from analytics.figures_monitoring import metric_label, monitoring_figure


def _colors(fig: dict[str, Any]) -> dict[str, str]:
    return {t["name"]: t["line"]["color"] for t in fig["data"]}


def test_a_code_has_one_colour_whatever_else_the_test_has() -> None:
    one = codes_figure("HTTP codes", [1, 2], {200: [1, 1]}, "responses/s")
    other = codes_figure("HTTP codes", [1, 2], {500: [1, 1], 404: [1, 1], 200: [1, 1], 302: [1, 1]}, "responses/s")
    assert _colors(one)["200"] == _colors(other)["200"]
    families = {
        200: ("#2ca02c", "#1a7f37", "#74c476", "#0b5d1e", "#a1d99b"),
        302: ("#1f77b4", "#6baed6", "#08519c", "#3182bd", "#9ecae1"),
        404: ("#ff7f0e", "#fdae6b", "#d95f02", "#f16913", "#fdd0a2", "#a63603"),
        500: ("#d62728", "#a50f15", "#fb6a4a", "#cb181d", "#fc9272", "#67000d"),
    }
    for code, family in families.items():
        assert _colors(other)[str(code)] in family, code
    # Codes of one family that often meet differ; net errors never take an HTTP family's colour.
    assert len({code_color("http", c) for c in (400, 401, 403, 404, 409, 429)}) == 6
    assert len({code_color("http", c) for c in (500, 502, 503, 504)}) == 4
    http_colours = {c for family in families.values() for c in family}
    assert code_color("net", 0) == "#2ca02c"
    for net_code in (110, 111, 104, 32, 99, 12345):
        assert code_color("net", net_code) not in http_colours, net_code
    net_fig = codes_figure("Net codes", [1], {0: [5], 110: [1]}, "responses/s")
    assert _colors(net_fig) == {"0": code_color("net", 0), "110": code_color("net", 110)}


def test_every_chart_has_a_legend_even_with_one_series_and_units_on_its_axes() -> None:
    figs = [
        codes_figure("HTTP codes", [1], {200: [1]}, "responses/s"),
        lines_figure("Bytes", [1], {"bytes in/s": [1]}, "bytes/s"),
        quantiles_figure([1], [50.0], np.array([[1.0]]), [3]),
        distribution_figure({"overall": ([1.0], [1.0], [3])}, log=False),
    ]
    for fig in figs:
        layout = fig["layout"]
        assert layout["showlegend"] is True
        assert layout["xaxis"]["title"]["text"] and layout["yaxis"]["title"]["text"]


def test_the_right_axis_names_only_the_series_drawn_on_it() -> None:
    without = quantiles_figure([1, 2], [50.0], np.array([[1.0], [2.0]]), [3, 4], [0, 0], [0, 0])
    assert without["layout"]["yaxis2"]["title"]["text"] == "responses/s"
    with_instances = quantiles_figure([1, 2], [50.0], np.array([[1.0], [2.0]]), [3, 4], [5, 5], [10, 20])
    assert with_instances["layout"]["yaxis2"]["title"]["text"] == "responses/s, instances"


def test_names_from_the_data_are_text_not_html() -> None:
    """A metric or case called `<a href=...>` must not become a live link in the legend (plotly renders HTML)."""
    evil = '<a href="https://evil.example">click</a>'
    fig = lines_figure(evil, [1], {evil: [1.0]}, "value")
    assert "<a" not in fig["data"][0]["name"] and "&lt;a href" in fig["data"][0]["name"]
    assert "<a" not in fig["layout"]["title"]["text"]
    dist = distribution_figure({evil: ([1.0], [1.0], [3])}, log=False)
    assert "<a" not in dist["data"][0]["name"]
    mon = monitoring_figure("<b>host</b>", "custom", {f"custom:{evil}": ([1], [1.0])})
    assert "<" not in mon["data"][0]["name"] and "<b>" not in mon["layout"]["title"]["text"]


def test_monitoring_names_read_well_and_memory_is_in_mib_or_gib() -> None:
    assert metric_label("custom:cpu-cpu-total_usage_user") == "user (all CPUs)"
    assert metric_label("custom:cpu-cpu3_usage_iowait") == "iowait (cpu3)"
    assert metric_label("Memory_used") == "used" and metric_label("System_la1") == "load, 1 min"
    assert metric_label("custom:diskio-sda_write_bytes") == "sda write bytes"
    small = monitoring_figure("db01", "memory", {"Memory_used": ([1, 2], [512 * 1024**2, 1024**3])})
    assert small["layout"]["yaxis"]["title"]["text"] == "MiB" and small["data"][0]["y"] == [512.0, 1024.0]
    big = monitoring_figure("db01", "memory", {"Memory_used": ([1], [4 * 1024**3])})
    assert big["layout"]["yaxis"]["title"]["text"] == "GiB" and big["data"][0]["y"] == [4.0]
    cpu = monitoring_figure("db01", "cpu", {"custom:cpu-cpu-total_usage_user": ([1], [12.5])})
    assert cpu["layout"]["yaxis"]["title"]["text"] == "%" and cpu["layout"]["title"]["text"] == "db01: CPU"


def test_monitoring_axes_keep_units_apart_rates_per_second_and_load_in_order() -> None:
    net = monitoring_figure(
        "db01",
        "network",
        {
            "custom:net-eth0_bytes_recv": ([1, 2], [3 * 1024**2, 4 * 1024**2]),
            "custom:net-eth0_packets_recv": ([1, 2], [997.0, 998.0]),
            "Net_retransmit": ([1, 2], [1.0, 0.0]),
        },
    )
    panels = {key: axis["title"]["text"] for key, axis in net["layout"].items() if key.startswith("yaxis")}
    assert sorted(panels.values()) == ["MiB/s", "packets/s", "retransmits/s"]
    assert {t["yaxis"] for t in net["data"]} == {"y", "y2", "y3"}  # one panel each, never a shared axis
    assert net["layout"]["xaxis"]["anchor"] == "y3"
    disk = monitoring_figure("db01", "disk", {"custom:diskio-sda_read_bytes": ([1], [114688.0])})
    assert disk["layout"]["yaxis"]["title"]["text"] == "KiB/s" and disk["data"][0]["y"] == [112.0]
    load = monitoring_figure("db01", "load", {f"System_la{m}": ([1], [1.0]) for m in (15, 1, 5)})
    assert [t["name"] for t in load["data"]] == ["load, 1 min", "load, 5 min", "load, 15 min"]


def test_distribution_is_a_density_and_names_its_bins() -> None:
    # 100 responses in a 1 ms bin and 100 in a 10 ms bin: the same count, a tenth of the density.
    fig = distribution_figure({"overall": ([10.0, 500.0], [1.0, 10.0], [100, 100])}, log=False)
    bars = fig["data"][0]
    assert bars["y"] == [100.0, 10.0] and bars["width"] == [1.0, 10.0]
    assert bars["customdata"][1] == ["500–510", 100, 50.0]
    assert fig["layout"]["yaxis"]["title"]["text"] == "responses per ms"
    log = distribution_figure({"overall": ([10.0, 500.0], [1.0, 10.0], [100, 100])}, log=True)
    assert log["layout"]["yaxis"]["ticktext"] == ["10", "20", "50", "100"]


def test_log_axes_write_their_ticks_in_full_and_time_axes_tick_whole_seconds() -> None:
    from analytics.figures import log_axis, time_axis_ticks

    assert log_axis(5, 300)["ticktext"] == ["5", "10", "20", "50", "100", "200"]
    assert log_axis(12, 30)["ticktext"] == ["15", "20", "30"]
    assert time_axis_ticks(100, 108) == {"tick0": 100_000, "dtick": 1000, "tickformat": "%H:%M:%S"}
    assert time_axis_ticks(0, 45)["dtick"] == 5000
    assert time_axis_ticks(0, 3600) == {}
