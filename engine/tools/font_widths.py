#!/usr/bin/env python3
"""Writes engine/src/diagram/font_widths.rs: advance widths for measuring diagram labels.

Each code point gets the larger advance of two real fonts, Liberation Sans (metric-compatible
with Arial and Helvetica, the usual `sans-serif`) and DejaVu Sans (what a bare Linux maps
`sans-serif` to; wider), so a label measured here fits its box in either. Widths are in
thousandths of an em, rounded up.

Run after installing the Debian packages fonts-liberation2 and fonts-dejavu-core:

    python3 engine/tools/font_widths.py > engine/src/diagram/font_widths.rs

Standard library only: reads the fonts' cmap, hmtx, hhea, head and name tables itself.
"""

import math
import struct
import sys

FONTS = [
    "/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
]

# Latin, Greek, Cyrillic, Hebrew, Arabic, and the punctuation, arrows and symbols that show up
# in diagram labels.
RANGES = [
    (0x0020, 0x007E), (0x00A0, 0x024F), (0x02B0, 0x036F), (0x0370, 0x03FF),
    (0x0400, 0x052F), (0x0590, 0x05FF), (0x0600, 0x06FF), (0x1E00, 0x1EFF),
    (0x2000, 0x206F), (0x20A0, 0x20CF), (0x2100, 0x214F), (0x2150, 0x218F),
    (0x2190, 0x21FF), (0x2200, 0x22FF), (0x2300, 0x23FF), (0x2460, 0x24FF),
    (0x2500, 0x25FF), (0x2600, 0x26FF), (0x2700, 0x27BF), (0xFB1D, 0xFB4F),
]


class Font:
    def __init__(self, path):
        self.path = path
        self.data = open(path, "rb").read()
        num_tables = struct.unpack(">H", self.data[4:6])[0]
        self.tables = {}
        for i in range(num_tables):
            rec = self.data[12 + 16 * i: 28 + 16 * i]
            tag, _, offset, length = struct.unpack(">4sIII", rec)
            self.tables[tag.decode("latin-1")] = (offset, length)
        self.upem = struct.unpack(">H", self.table("head")[18:20])[0]
        n_metrics = struct.unpack(">H", self.table("hhea")[34:36])[0]
        hmtx = self.table("hmtx")
        self.advances = [struct.unpack(">H", hmtx[4 * i: 4 * i + 2])[0] for i in range(n_metrics)]
        self.cmap = self.read_cmap()

    def table(self, tag):
        offset, length = self.tables[tag]
        return self.data[offset: offset + length]

    def read_cmap(self):
        cmap = self.table("cmap")
        n = struct.unpack(">H", cmap[2:4])[0]
        subtables = {}
        for i in range(n):
            pid, eid, off = struct.unpack(">HHI", cmap[4 + 8 * i: 12 + 8 * i])
            subtables[(pid, eid)] = off
        for key in [(3, 10), (0, 4), (3, 1), (0, 3)]:
            if key in subtables:
                off = subtables[key]
                fmt = struct.unpack(">H", cmap[off: off + 2])[0]
                if fmt == 12:
                    return self.cmap12(cmap[off:])
                if fmt == 4:
                    return self.cmap4(cmap[off:])
        raise SystemExit(f"{self.path}: no Unicode cmap subtable this script reads")

    @staticmethod
    def cmap4(t):
        segx2 = struct.unpack(">H", t[6:8])[0]
        seg = segx2 // 2
        ends = struct.unpack(f">{seg}H", t[14: 14 + segx2])
        starts = struct.unpack(f">{seg}H", t[16 + segx2: 16 + 2 * segx2])
        deltas = struct.unpack(f">{seg}h", t[16 + 2 * segx2: 16 + 3 * segx2])
        ro_at = 16 + 3 * segx2
        range_offsets = struct.unpack(f">{seg}H", t[ro_at: ro_at + segx2])
        out = {}
        for i in range(seg):
            for cp in range(starts[i], ends[i] + 1):
                if cp == 0xFFFF:
                    continue
                if range_offsets[i] == 0:
                    g = (cp + deltas[i]) & 0xFFFF
                else:
                    at = ro_at + 2 * i + range_offsets[i] + 2 * (cp - starts[i])
                    g = struct.unpack(">H", t[at: at + 2])[0]
                    if g:
                        g = (g + deltas[i]) & 0xFFFF
                if g:
                    out[cp] = g
        return out

    @staticmethod
    def cmap12(t):
        n = struct.unpack(">I", t[12:16])[0]
        out = {}
        for i in range(n):
            start, end, glyph = struct.unpack(">III", t[16 + 12 * i: 28 + 12 * i])
            for k, cp in enumerate(range(start, end + 1)):
                out[cp] = glyph + k
        return out

    def advance(self, cp):
        g = self.cmap.get(cp)
        if g is None:
            return None
        adv = self.advances[min(g, len(self.advances) - 1)]
        return adv / self.upem

    def name(self, wanted):
        t = self.table("name")
        count, string_at = struct.unpack(">HH", t[2:6])
        for i in range(count):
            pid, eid, lid, nid, length, off = struct.unpack(">6H", t[6 + 12 * i: 18 + 12 * i])
            if nid == wanted and pid == 3:
                raw = t[string_at + off: string_at + off + length]
                return raw.decode("utf-16-be")
        return "?"


def main():
    fonts = [Font(p) for p in FONTS]
    widths = {}
    for lo, hi in RANGES:
        for cp in range(lo, hi + 1):
            got = [a for a in (f.advance(cp) for f in fonts) if a is not None]
            if got:
                widths[cp] = math.ceil(max(got) * 1000 - 1e-9)
    letters = [widths[c] for c in range(0x41, 0x5B)] + [widths[c] for c in range(0x61, 0x7B)]
    runs = []
    for cp in sorted(widths):
        w = widths[cp]
        if runs and runs[-1][1] == cp - 1 and runs[-1][2] == w:
            runs[-1][1] = cp
        else:
            runs.append([cp, cp, w])
    out = sys.stdout
    out.write("// @generated by engine/tools/font_widths.py from\n")
    for f in fonts:
        out.write(f"// {f.name(4)}, {f.name(5).strip()}\n")
    out.write("// Do not edit by hand.\n\n")
    out.write("/// Advance widths in thousandths of an em: `(first, last, width)` runs, sorted.\n")
    out.write("pub const RUNS: &[(u32, u32, u16)] = &[\n")
    for lo, hi, w in runs:
        out.write(f"    (0x{lo:04X}, 0x{hi:04X}, {w}),\n")
    out.write("];\n\n")
    out.write("/// For a code point neither font has: the widest Latin letter.\n")
    out.write(f"pub const FALLBACK: u16 = {max(letters)};\n")


if __name__ == "__main__":
    main()
