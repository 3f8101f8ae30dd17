#!/usr/bin/env python3
"""Checks what headless Chromium made of a runner report, independently of the
runner: the screenshot (decoded here with zlib, no imaging library) is not
blank, the dark scheme is darker than the light one, and the DOM Chromium
parsed holds the expected SVG series, counted from the run's own metrics.jsonl.

usage: check_render.py [smoke RUN_DIR DOM LIGHT_PNG DARK_PNG] [sweep SWEEP_DIR DOM LIGHT_PNG DARK_PNG]
                       [smoke-time RUN_DIR DOM - -]  (a report with --x time: its series only)
Prints one "case: ok|FAILED" line per check and a Catch2-like summary that
scripts/test.sh counts."""
import json
import struct
import sys
import zlib
from html.parser import HTMLParser
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "support"))
import catch_summary  # noqa: E402

results = []  # (name, [failed assertion messages], assertions)


class Case:
    def __init__(self, name):
        self.name, self.failures, self.assertions = name, [], 0

    def check(self, cond, message):
        self.assertions += 1
        if not cond:
            self.failures.append(message)

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        if kind is not None:
            self.failures.append(f"raised {kind.__name__}: {value}")
        results.append((self.name, self.failures, self.assertions))
        return True


def png_pixels(path):
    """(width, height, rows of RGB tuples) of an 8-bit RGB or RGBA PNG."""
    data = Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, f"unsupported PNG {header}"
    bpp = 3 if colour == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):  # undo the PNG filters (RFC 2083, 6.2-6.6)
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if kind == 1: line[i] = (line[i] + a) & 255
            elif kind == 2: line[i] = (line[i] + b) & 255
            elif kind == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(width)])
        prev = line
    return width, height, rows


def picture_stats(path):
    """Distinct colours, the share of pixels unlike the commonest one, mean luminance."""
    _, _, rows = png_pixels(path)
    counts = {}
    for row in rows[::2]:
        for px in row[::2]:
            counts[px] = counts.get(px, 0) + 1
    total = sum(counts.values())
    commonest = max(counts.values())
    luminance = sum((0.2126 * r + 0.7152 * g + 0.0722 * b) * n for (r, g, b), n in counts.items()) / total
    return len(counts), 1 - commonest / total, luminance


class SvgIndex(HTMLParser):
    """The charts (svg ids) and their series groups and markers in a DOM dump."""

    def __init__(self):
        super().__init__()
        self.charts, self.current, self.table_rows = {}, None, {}
        self.table = None
        self.classes = {}  # class attribute -> elements that have it

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for name in (a.get("class") or "").split():
            self.classes[name] = self.classes.get(name, 0) + 1
        if tag == "svg" and "id" in a:
            self.current = self.charts.setdefault(a["id"], {"series": [], "markers": []})
        elif tag == "g" and self.current is not None and "data-series" in a:
            self.current["series"].append(a)
        elif tag == "g" and self.current is not None and "data-marker" in a:
            self.current["markers"].append(a)
        elif tag == "table" and "id" in a:
            self.table = a["id"]
            self.table_rows[self.table] = 0
        elif tag == "tr" and self.table:
            self.table_rows[self.table] += 1

    def handle_endtag(self, tag):
        if tag == "svg":
            self.current = None
        elif tag == "table":
            self.table = None


def events(run_dir, kind):
    out = []
    for line in (Path(run_dir) / "metrics.jsonl").read_text().splitlines():
        e = json.loads(line)
        if e.get("event") == kind:
            out.append(e)
    return out


def check_pictures(name, light, dark):
    with Case(f"{name}: the screenshots are not blank, and dark is darker") as c:
        colours, inked, lum_light = picture_stats(light)
        c.check(colours >= 8, f"{light}: only {colours} colours")
        c.check(inked >= 0.02, f"{light}: only {inked:.3%} of the pixels differ from the background")
        colours_dark, inked_dark, lum_dark = picture_stats(dark)
        c.check(colours_dark >= 8 and inked_dark >= 0.02, f"{dark}: blank ({colours_dark} colours)")
        c.check(lum_dark < lum_light - 60, f"dark scheme mean luminance {lum_dark:.0f} vs light {lum_light:.0f}")


def check_legends(name, classes, figures, items):
    with Case(f"{name}: one legend a figure, none in the charts") as c:
        c.check(classes.get("legend-text", 0) == 0, f"{classes.get('legend-text')} legends inside charts")
        c.check(classes.get("figure-legend", 0) == figures,
                f"{classes.get('figure-legend', 0)} figure legends, expected {figures}")
        c.check(classes.get("legend-item", 0) == items, f"{classes.get('legend-item', 0)} legend items, expected {items}")


def check_width(light):
    """One run's page: the charts stand beside the identity table, so the right
    half of the top of the page is drawn on (it was empty beside a narrow table)."""
    with Case("smoke: the page uses its width (the right half of its top is not empty)") as c:
        width, height, rows = png_pixels(light)
        counts = {}
        for row in rows[::4]:
            for px in row[::4]:
                counts[px] = counts.get(px, 0) + 1
        background = max(counts, key=counts.get)
        region = [px for row in rows[100:min(height, 700):2] for px in row[width // 2::2]]
        inked = sum(1 for px in region if px != background) / max(1, len(region))
        c.check(inked >= 0.10, f"only {inked:.1%} of the top right quarter differs from the background")


def series_points(chart, key):
    return [int(s["data-points"]) for s in chart["series"] if s["data-series"] == key]


def check_run(run_dir, charts, name="smoke"):
    train, evals = events(run_dir, "train"), events(run_dir, "eval")
    summary = json.loads((Path(run_dir) / "summary.json").read_text())
    with Case(f"{name}: every chart has the run's series with as many points as metrics.jsonl") as c:
        c.check(len(train) > 0 and len(evals) > 0, "the smoke run logged no train or eval events")
        for chart, key, field, source in [("chart-train-loss", "train.loss", "loss", train),
                                          ("chart-lr", "train.lr", "lr", train),
                                          ("chart-grad-norm", "train.grad_norm", "grad_norm", train),
                                          ("chart-throughput", "train.samples_per_s", "samples_per_s", train),
                                          ("chart-eval-loss", "eval.loss", "loss", evals),
                                          ("chart-eval-accuracy", "eval.accuracy", "accuracy", evals),
                                          ("chart-eval-f1", "eval.f1", "f1", evals)]:
            want = sum(1 for e in source if field in e)
            c.check(chart in charts, f"no <svg id={chart}>")
            got = series_points(charts.get(chart, {"series": []}), key)
            c.check(got == [want], f"{chart}: series {key} has {got} points, metrics.jsonl has {want}")
        c.check("chart-loss-scale" not in charts, "an fp32 run has a loss-scale chart")
    with Case(f"{name}: the best checkpoint is marked at summary.json's best step") as c:
        best = summary.get("best", {}).get("step")
        markers = [m.get("data-step") for m in charts.get("chart-eval-f1", {"markers": []})["markers"]]
        c.check(best is not None and markers == [str(best)], f"markers {markers}, best step {best}")


def check_sweep(sweep_dir, charts, tables):
    summary = json.loads((Path(sweep_dir) / "sweep_summary.json").read_text())
    points = summary["points"]
    with Case("sweep: a table row per point and the metric against each swept key") as c:
        c.check(len(points) == 4, f"the sweep has {len(points)} points, not 4")
        c.check(tables.get("sweep-points") == len(points) + 1, f"sweep-points has {tables.get('sweep-points')} rows")
        keys = sorted({k for p in points for k in p["overrides"]})
        for key in keys:
            chart = "chart-sweep-" + "".join(ch if (ch.isascii() and ch.isalnum()) or ch in "_-" else "-" for ch in key)
            want = sum(1 for p in points if p.get("best") is not None and key in p["overrides"])
            got = series_points(charts.get(chart, {"series": []}), "sweep.best")
            c.check(got == [want], f"{chart}: sweep.best has {got} points, the summary {want}")
    with Case("sweep: the points' runs are overlaid, one series each") as c:
        got = series_points(charts.get("chart-eval-f1", {"series": []}), "eval.f1")
        c.check(len(got) == 4 and all(n > 0 for n in got), f"chart-eval-f1 series points {got}")


def main():
    args = sys.argv[1:]
    while args:
        mode, record_dir, dom, light, dark = args[:5]
        args = args[5:]
        index = SvgIndex()
        index.feed(Path(dom).read_text())
        if mode == "smoke-time":
            check_run(record_dir, index.charts, mode)
            continue
        check_pictures(mode, light, dark)
        if mode == "smoke":
            check_run(record_dir, index.charts)
            check_legends(mode, index.classes, 1, 1)
            check_width(light)
        else:
            check_sweep(record_dir, index.charts, index.table_rows)
            # the metric against the keys (best and final), then the points' runs (4)
            check_legends(mode, index.classes, 2, 2 + 4)
    return catch_summary.report(results)


if __name__ == "__main__":
    sys.exit(main())
