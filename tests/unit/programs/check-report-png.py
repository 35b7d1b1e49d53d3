#!/usr/bin/env python3
# Checks a browser's screenshot of `mglructl report`'s picture against the SVG it rendered:
#   check-report-png.py SCREENSHOT.png REPORT.svg EXPECTED_CURVES
# The plot area (the SVG's rect#plot) must not be blank, exactly EXPECTED_CURVES of the palette's
# colours must be drawn in it (one per curve, no other curve colour), and every data point (the
# circles of each curve) must have pixels of its curve's colour around where the SVG put it.
# The PNG is decoded here (zlib and the five row filters), so no imaging library is needed.
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

PALETTE = ["#333333", "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd"]
TOLERANCE = 40   # per channel: antialiased edges blend with white
MIN_PIXELS = 20  # a curve of one point is a circle of radius 6, stroke 2


def read_png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    assert depth == 8 and ctype in (2, 6) and interlace == 0, f"unsupported PNG {hdr}"
    bpp = 4 if ctype == 6 else 3
    raw, stride = zlib.decompress(idat), w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def rgb(hexcolour):
    return tuple(int(hexcolour[i:i + 2], 16) for i in (1, 3, 5))


def main():
    png, svg, expected = sys.argv[1], sys.argv[2], int(sys.argv[3])
    w, h, bpp, rows = read_png(png)
    ns = {"s": "http://www.w3.org/2000/svg"}
    root = ET.parse(svg).getroot()
    plot = root.find(".//s:rect[@id='plot']", ns)
    x0, y0 = int(float(plot.get("x"))), int(float(plot.get("y")))
    x1, y1 = x0 + int(float(plot.get("width"))), y0 + int(float(plot.get("height")))
    assert x1 <= w and y1 <= h, f"screenshot {w}x{h} smaller than the plot area"

    def pixel(x, y):
        p = rows[y][x * bpp:x * bpp + 3]
        return p[0], p[1], p[2]

    def near(p, c):
        return all(abs(p[i] - c[i]) <= TOLERANCE for i in range(3))

    inked, counts = 0, {c: 0 for c in PALETTE}
    for y in range(y0 + 2, y1 - 2):
        for x in range(x0 + 2, x1 - 2):
            p = pixel(x, y)
            if p != (255, 255, 255):
                inked += 1
            for c in PALETTE:
                if near(p, rgb(c)):
                    counts[c] += 1
    drawn = [c for c in PALETTE if counts[c] >= MIN_PIXELS]
    print(f"plot area {x1 - x0}x{y1 - y0}: {inked} pixels not white; per colour {counts}")
    assert inked > 500, "the plot area is blank"
    curves = root.findall(".//s:g[@class='curve']", ns)
    assert len(curves) == expected, f"the SVG has {len(curves)} curves, expected {expected}"
    want = sorted(g.get("data-colour") for g in curves)
    assert sorted(drawn) == want, f"colours drawn {drawn}, curves {want}"
    for g in curves:
        c = rgb(g.get("data-colour"))
        for circle in g.findall("s:circle", ns):
            cx, cy = float(circle.get("cx")), float(circle.get("cy"))
            hits = sum(near(pixel(x, y), c)
                       for y in range(int(cy) - 8, int(cy) + 9) for x in range(int(cx) - 8, int(cx) + 9)
                       if 0 <= x < w and 0 <= y < h)
            assert hits >= 6, f"{g.get('data-name')}: nothing drawn at ({cx}, {cy})"
        print(f"{g.get('data-name')}: {len(g.findall('s:circle', ns))} points drawn in "
              f"{g.get('data-colour')}")
    print(f"{expected} curves drawn")


main()
