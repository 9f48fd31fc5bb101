use super::label::direction;
use super::number::{num, tenths};
use super::theme::{colour, paint};
use super::writer::{NEEDS_WORK, Plain, Val, Writer, escape_into, may_need_work};
use super::*;
use crate::diagram::flowchart::draw::node_class;
use crate::diagram::line::Stroke;
use crate::diagram::shapes::Shape;

#[test]
fn tenths_round_half_away_from_zero_as_round_does() {
    let old = |v: f64| {
        let t = (v * 10.0).round();
        (t.is_finite() && t.abs() <= 1e15).then_some(t as i64)
    };
    let mut bits = crate::diagram::xorshift(0x2545_f491_4f6c_dd1d);
    let mut next = || bits();
    let mut values = vec![
        0.0,
        -0.0,
        0.05,
        -0.05,
        0.15,
        0.25,
        -0.25,
        0.35,
        1.25,
        -907.15,
        1e14,
        1e14 + 0.05,
        -1e14,
        1e15,
        1e15 + 0.375,
        1e15 + 0.5,
        -1e15 - 0.5,
        -1e15 - 0.375,
        (1e15 + 0.5) / 10.0,
        1e14 * 1.0000001,
        4e14,
        4.5e14,
        9e14,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MAX,
        f64::MIN_POSITIVE,
        0.049_999_999_999_999_996,
    ];
    for _ in 0..20_000 {
        let bits = next();
        values.push(f64::from_bits(bits));
        // Tenths and halves, small and large.
        let k = (next() % 2_000_001) as f64 - 1_000_000.0;
        values.push(k / 20.0);
        values.push(k / 20.0 + f64::EPSILON * k);
        values.push((next() % 1_000_000) as f64 / 7.0 - 70_000.0);
    }
    for v in values {
        assert_eq!(tenths(v), old(v), "{v:e}");
    }
}

#[test]
fn the_writer_escapes_every_value() {
    let mut w = Writer::new();
    w.open("g", &[("data-node", Val::Text("a\"b<c>&'d"))]);
    w.text("<script>&\u{1}x</script>");
    w.close("g");
    assert_eq!(
        w.finish(),
        "<g data-node=\"a&quot;b&lt;c&gt;&amp;&#39;d\">&lt;script&gt;&amp;x&lt;/script&gt;</g>"
    );
    // An id with a suffix: the id is escaped too.
    let mut w = Writer::new();
    w.open(
        "title",
        &[("id", Val::Suffixed("x\"y", Plain::new("-title")))],
    );
    assert_eq!(w.finish(), "<title id=\"x&quot;y-title\">");
}

/// The attributes written one by one.
fn written(attrs: &[(&'static str, Val)]) -> String {
    let mut w = Writer::new();
    w.attrs(attrs);
    w.finish()
}

#[test]
fn paint_runs_are_the_attributes_they_stand_for() {
    use colour::{LINE, NODE_FILL, NODE_LINE};
    let shape = [
        ("class", plain!("pb-d-shape")),
        ("fill", NODE_FILL),
        ("stroke", NODE_LINE),
        ("stroke-width", plain!("1.5")),
    ];
    assert_eq!(paint::SHAPE.0, written(&shape));
    let head = [
        ("fill", LINE),
        ("stroke", LINE),
        ("stroke-width", plain!("1")),
    ];
    assert_eq!(paint::HEAD.0, written(&head));
    let shape_line = [
        ("class", plain!("pb-d-shape-line")),
        ("fill", plain!("none")),
        ("stroke", NODE_LINE),
        ("stroke-width", plain!("1.5")),
    ];
    assert_eq!(paint::SHAPE_LINE.0, written(&shape_line));
    let solid = [
        ("class", plain!("pb-d-shape-solid")),
        ("fill", NODE_LINE),
        ("stroke", NODE_LINE),
        ("stroke-width", plain!("1.5")),
    ];
    assert_eq!(paint::SHAPE_SOLID.0, written(&solid));
    let fill = [
        ("class", plain!("pb-d-shape-fill")),
        ("fill", NODE_FILL),
        ("stroke", plain!("none")),
    ];
    assert_eq!(paint::SHAPE_FILL.0, written(&fill));
    for stroke in [
        Stroke::Solid,
        Stroke::Dotted,
        Stroke::Thick,
        Stroke::Invisible,
    ] {
        let (colour, width) = match stroke {
            Stroke::Invisible => (plain!("none"), plain!("1")),
            Stroke::Thick => (LINE, plain!("3")),
            _ => (LINE, plain!("1.5")),
        };
        let attrs = [
            ("fill", plain!("none")),
            ("stroke", colour),
            ("stroke-width", width),
            ("stroke-dasharray", plain!("3 4")),
        ];
        let dotted = stroke == Stroke::Dotted;
        let want = written(&attrs[..attrs.len() - usize::from(!dotted)]);
        assert_eq!(paint::line(stroke).0, want, "{stroke:?}");
    }
}

/// `push_num` as it was written before: digits filled from the end of a buffer.
fn num_from_buffer(v: f64) -> String {
    let Some(t) = tenths(v) else {
        return "0".into();
    };
    let mut buf = [0u8; 24];
    let mut at = buf.len();
    let mut u = t.unsigned_abs();
    if u % 10 != 0 {
        at -= 2;
        buf[at] = b'.';
        buf[at + 1] = b'0' + (u % 10) as u8;
    }
    u /= 10;
    loop {
        at -= 1;
        buf[at] = b'0' + (u % 10) as u8;
        u /= 10;
        if u == 0 {
            break;
        }
    }
    if t < 0 {
        at -= 1;
        buf[at] = b'-';
    }
    buf[at..].iter().map(|&b| char::from(b)).collect()
}

#[test]
fn numbers_are_written_as_the_buffer_wrote_them() {
    let mut bits = crate::diagram::xorshift(0x9e37_79b9_7f4a_7c15);
    let mut values = vec![
        0.0, -0.0, 0.04, -0.04, 9.95, 99.95, 999.95, 1e15, -1e15, 1e14,
    ];
    for _ in 0..20_000 {
        let b = bits();
        values.push(f64::from_bits(b));
        values.push((b % 20_000_001) as f64 / 10.0 - 1_000_000.0);
        values.push((b % 100_000) as f64 / 7.0 - 5_000.0);
    }
    for p in 0..=16 {
        let v = 10f64.powi(p);
        values.extend([v, v - 0.05, -v, v * 0.99]);
    }
    for v in values {
        assert_eq!(num(v), num_from_buffer(v), "{v:e}");
    }
}

#[test]
fn numbers_are_short_and_never_negative_zero() {
    assert_eq!(num(1.0), "1");
    assert_eq!(num(1.26), "1.3");
    assert_eq!(num(-0.01), "0");
    assert_eq!(num(-2.5), "-2.5");
    assert_eq!(num(-0.25), "-0.3");
    assert_eq!(num(1234.96), "1235");
    assert_eq!(num(f64::NAN), "0");
    assert_eq!(num(0.0), "0");
    assert_eq!(num(10.0), "10");
    assert_eq!(num(100.04), "100");
    assert_eq!(num(-907.15), "-907.2");
    assert_eq!(num(1e14), "100000000000000");
}

#[test]
fn the_font_family_is_escaped_as_escape_into_escapes_it() {
    let fonts = "Arial, 'Liberation Sans', Helvetica, 'DejaVu Sans', sans-serif";
    let mut out = String::new();
    escape_into(&mut out, fonts);
    assert_eq!(out, FONT_FAMILY_ESCAPED);
}

#[test]
fn a_word_may_need_work_exactly_when_a_byte_passes_its_tests() {
    let mut bits = crate::diagram::xorshift(0x5851_f42d_4c95_7f2d);
    // Bytes around each kind the table marks, and the rest at random.
    let near = [
        0x00, 0x1F, 0x20, 0x21, 0x22, 0x26, 0x27, 0x28, 0x3B, 0x3C, 0x3D, 0x3E, 0x3F, 0x7F, 0x80,
        0xA2, 0xBC, 0xBE, 0xEE, 0xEF, 0xF0, 0xFF, b'a', b' ',
    ];
    for round in 0..200_000 {
        let b = bits();
        let word = if round % 2 == 0 {
            b
        } else {
            u64::from_le_bytes(std::array::from_fn(|k| {
                near[(b >> (8 * k)) as usize % near.len()]
            }))
        };
        // `#$%` pass too, for the one range test.
        let want = word
            .to_le_bytes()
            .iter()
            .any(|&b| NEEDS_WORK[usize::from(b)] || matches!(b, b'#' | b'$' | b'%'));
        assert_eq!(may_need_work(word), want, "{word:#018x}");
    }
}

#[test]
fn xml_forbidden_characters_are_dropped_and_whitespace_flattened() {
    let mut out = String::new();
    escape_into(&mut out, "a\tb\nc\u{7}d\u{FFFE}e\u{FFFF}f\u{FFFD}é\u{EFFF}");
    assert_eq!(out, "a b cdef\u{FFFD}é\u{EFFF}");
    // The same past the first eight bytes, which are passed over whole.
    let mut out = String::new();
    escape_into(&mut out, "12345678\u{FFFF}<abcdefghij\u{EFFF}k&l'm\"\u{1}");
    assert_eq!(out, "12345678&lt;abcdefghij\u{EFFF}k&amp;l&#39;m&quot;");
}

#[test]
fn label_direction_follows_its_first_strong_character() {
    assert_eq!(direction("Serve cached?"), "ltr");
    assert_eq!(direction("שלום?"), "rtl");
    assert_eq!(direction("42 مرحبا"), "rtl");
    assert_eq!(direction("42"), "ltr");
}

#[test]
fn node_classes_name_their_shape() {
    for shape in Shape::ALL {
        let Val::Plain(class) = node_class(shape) else {
            panic!("{shape:?}: not plain");
        };
        assert_eq!(class.0, format!("pb-d-node pb-d-{}", shape.name()));
    }
}
