#!/usr/bin/env python3
"""Generate the History Chat extension icons (icon-16/32/48/128.png).

Run:  python3 assets/icons/make_icons.py     (needs Pillow: pip install pillow)

Design: a deep-indigo rounded chat bubble (tail at bottom-left) with a white
clock inside, on a transparent background.  Each size is drawn at 16x
resolution and box-filtered down (exact-coverage anti-aliasing); 16 and 32 px
use hand-snapped geometry so the clock stays crisp at toolbar size.
"""
from pathlib import Path

from PIL import Image, ImageDraw

HERE = Path(__file__).resolve().parent
INDIGO = (59, 63, 182, 255)  # #3b3fb6
WHITE = (255, 255, 255, 255)
SS = 16  # supersampling factor

# Geometry per size, in output pixels (floats allowed; drawn at SS x then
# box-filtered down, i.e. exact-coverage anti-aliasing).  16 and 32 px are
# pixel-snapped by hand so the ring and hands land on whole pixels.
#   body: bubble rect (x0, y0, x1, y1), rad: corner radius,
#   tail: tail triangle, c: clock centre, r: ring centre-line radius,
#   ring / hand: stroke widths, m / h: minute-hand length, hour-hand (dx, dy)
def layout(size):
    if size == 16:
        return dict(body=(0, 0, 15, 13), rad=4, tail=[(2, 11), (9, 11), (1.5, 16)],
                    c=(7.5, 6.5), r=4.0, ring=1.3, hand=1.0, m=2.5, h=(2.5, 0))
    if size == 32:
        return dict(body=(1, 1, 31, 26), rad=7.5, tail=[(6, 22), (16, 22), (4, 31)],
                    c=(16, 13.5), r=8.0, ring=2.0, hand=2.0, m=5.0, h=(4.5, 1.5))
    u = size / 128.0
    return dict(body=(5 * u, 6 * u, 123 * u, 102 * u), rad=30 * u,
                tail=[(26 * u, 90 * u), (64 * u, 90 * u), (17 * u, 123 * u)],
                c=(64 * u, 54.5 * u), r=29 * u, ring=8 * u, hand=8.5 * u,
                m=20 * u, h=(15 * u, 5 * u))


SIZES = (16, 32, 48, 128)


def line(d, p0, p1, w, fill):
    """Stroke with round caps."""
    d.line([p0, p1], fill=fill, width=round(w))
    for x, y in (p0, p1):
        d.ellipse([x - w / 2, y - w / 2, x + w / 2, y + w / 2], fill=fill)


def draw(size):
    g = layout(size)
    k = SS
    img = Image.new("RGBA", (size * k, size * k), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    sc = lambda p: (p[0] * k, p[1] * k)  # noqa: E731

    x0, y0, x1, y1 = g["body"]
    d.rounded_rectangle([x0 * k, y0 * k, x1 * k - 1, y1 * k - 1], radius=g["rad"] * k, fill=INDIGO)
    d.polygon([sc(p) for p in g["tail"]], fill=INDIGO)

    cx, cy = g["c"]
    ro, ri = g["r"] + g["ring"] / 2, g["r"] - g["ring"] / 2
    d.ellipse([(cx - ro) * k, (cy - ro) * k, (cx + ro) * k - 1, (cy + ro) * k - 1], fill=WHITE)
    d.ellipse([(cx - ri) * k, (cy - ri) * k, (cx + ri) * k - 1, (cy + ri) * k - 1], fill=INDIGO)

    small = size <= 16  # square-ended, pixel-aligned hands at 16 px
    w = g["hand"] * k
    c = (cx * k, cy * k)
    if small:
        # minute hand: column straight up; hour hand: row to the right
        d.rectangle([(cx - 0.5) * k, (cy - g["m"]) * k, (cx + 0.5) * k - 1, (cy + 0.5) * k - 1], fill=WHITE)
        d.rectangle([(cx - 0.5) * k, (cy - 0.5) * k, (cx + g["h"][0]) * k - 1, (cy + 0.5) * k - 1], fill=WHITE)
    else:
        line(d, c, (c[0], c[1] - g["m"] * k), w, WHITE)
        line(d, c, (c[0] + g["h"][0] * k, c[1] + g["h"][1] * k), w, WHITE)

    return img.resize((size, size), Image.BOX)


def main():
    for size in SIZES:
        out = HERE / f"icon-{size}.png"
        draw(size).save(out, optimize=True)
        print("wrote", out)


if __name__ == "__main__":
    main()
